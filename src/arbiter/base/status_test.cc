#include "arbiter/base/status.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(StatusTest, DefaultIsOkWithEmptyMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = InvalidArgumentError("pod a/b: spec.containers[0]: bad quantity");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: pod a/b: spec.containers[0]: bad quantity");
}

TEST(StatusTest, OkCodeDropsMessage) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(NotFoundError("queue q").WithContext("podgroup ns/g").message(),
            "podgroup ns/g: queue q");
  EXPECT_TRUE(Status::Ok().WithContext("anything").ok());
}

TEST(StatusTest, EqualityComparesCodeAndMessage) {
  EXPECT_EQ(InternalError("x"), InternalError("x"));
  EXPECT_NE(InternalError("x"), InternalError("y"));
  EXPECT_NE(InternalError("x"), UnavailableError("x"));
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<std::string> v = std::string("hello");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "hello");
  EXPECT_EQ(v->size(), 5U);
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> v = OutOfRangeError("too big");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kOutOfRange);
}

TEST(StatusOrTest, MovesOutMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> v = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(v).value();
  EXPECT_EQ(*p, 7);
}

TEST(StatusOrDeathTest, ValueOfErrorAborts) {
  StatusOr<int> v = InternalError("boom");
  EXPECT_DEATH({ (void)v.value(); }, "value\\(\\) of an error: INTERNAL: boom");
}

TEST(StatusOrDeathTest, BuildingFromOkStatusAborts) {
  EXPECT_DEATH({ StatusOr<int> v{Status::Ok()}; }, "StatusOr built from an OK Status");
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd");
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  ARBITER_ASSIGN_OR_RETURN(int h, Half(x));
  ARBITER_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  ARBITER_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(StatusMacrosTest, AssignOrReturnPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status(), InvalidArgumentError("odd"));
}

TEST(StatusMacrosTest, ReturnIfErrorPropagates) {
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(3), InvalidArgumentError("odd"));
}

}  // namespace
}  // namespace arbiter
