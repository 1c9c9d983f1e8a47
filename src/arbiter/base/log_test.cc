#include "arbiter/base/log.h"

#include <sstream>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

class LogTest : public testing::Test {
 protected:
  void SetUp() override { SetLogStream(&out_); }
  void TearDown() override {
    SetLogStream(nullptr);
    SetLogVerbosity(0);
  }
  std::ostringstream out_;
};

TEST_F(LogTest, InfoLinesAreAlwaysWritten) {
  ARBITER_LOG(kInfo) << "bound pod=ns/p node=n1";
  EXPECT_NE(out_.str().find("I log_test.cc:"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("] bound pod=ns/p node=n1"), std::string::npos) << out_.str();
}

TEST_F(LogTest, VerboseLinesNeedTheirVerbosity) {
  int evaluated = 0;
  ARBITER_VLOG(4) << "hidden " << ++evaluated;
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(evaluated, 0);  // not even formatted
  SetLogVerbosity(4);
  ARBITER_VLOG(4) << "shown";
  EXPECT_NE(out_.str().find("shown"), std::string::npos);
}

}  // namespace
}  // namespace arbiter
