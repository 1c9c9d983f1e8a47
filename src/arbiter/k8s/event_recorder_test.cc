#include "arbiter/k8s/event_recorder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace arbiter::k8s {
namespace {

using Kind = EventAggregator::Decision::Kind;

EventSpec Failed(const std::string& pod, const std::string& note) {
  EventSpec e;
  e.regarding.namespace_name = "ns";
  e.regarding.name = pod;
  e.regarding.uid = "uid-" + pod;
  e.type = "Warning";
  e.reason = "FailedScheduling";
  e.note = note;
  return e;
}

TEST(EventAggregatorTest, RepeatsBecomeASeriesOfOneEvent) {
  FakeClock clock;
  EventRecorderOptions options;
  EventAggregator agg(options, clock);
  EventAggregator::Decision first = agg.Observe(Failed("p", "0/3 nodes have enough cpu"));
  EXPECT_EQ(first.kind, Kind::kCreate);
  EXPECT_EQ(first.count, 1);
  clock.Advance(std::chrono::seconds(1));
  EventAggregator::Decision second = agg.Observe(Failed("p", "0/3 nodes have enough cpu"));
  EXPECT_EQ(second.kind, Kind::kUpdateSeries);
  EXPECT_EQ(second.event_name, first.event_name);
  EXPECT_EQ(second.count, 2);
}

TEST(EventAggregatorTest, DifferentNotesOrObjectsAreDifferentEvents) {
  FakeClock clock;
  EventAggregator agg(EventRecorderOptions{}, clock);
  std::string a = agg.Observe(Failed("p", "x")).event_name;
  EXPECT_EQ(agg.Observe(Failed("p", "y")).kind, Kind::kCreate);
  EXPECT_EQ(agg.Observe(Failed("q", "x")).kind, Kind::kCreate);
  EXPECT_NE(agg.Observe(Failed("q", "x")).event_name, a);
}

TEST(EventAggregatorTest, AfterTheWindowANewEventStarts) {
  FakeClock clock;
  EventRecorderOptions options;
  options.aggregation_window = std::chrono::minutes(10);
  EventAggregator agg(options, clock);
  std::string first = agg.Observe(Failed("p", "x")).event_name;
  clock.Advance(std::chrono::minutes(11));
  EventAggregator::Decision later = agg.Observe(Failed("p", "x"));
  EXPECT_EQ(later.kind, Kind::kCreate);
  EXPECT_NE(later.event_name, first);
}

// A scheduler sees pods come and go for months: what it remembers of their events follows the
// event rate, not the number of pods ever seen (found by hack/soak.sh, whose RSS grew with every
// pod bound).
TEST(EventAggregatorTest, ForgetsObjectsOnceTheirEventsCanNoLongerChangeADecision) {
  FakeClock clock;
  EventRecorderOptions options;  // a 10-minute window; a budget's token back in 5 minutes
  EventAggregator agg(options, clock);
  for (int i = 0; i < 1000; ++i) agg.Observe(Failed("pod-" + std::to_string(i), "bound"));
  EXPECT_EQ(agg.remembered(), 2000U);
  clock.Advance(std::chrono::minutes(11));
  EXPECT_EQ(agg.Observe(Failed("late", "bound")).kind, Kind::kCreate);
  EXPECT_EQ(agg.remembered(), 2U);
  // What is forgotten decides as before: the same event again is a new one, within its budget.
  EXPECT_EQ(agg.Observe(Failed("pod-0", "bound")).kind, Kind::kCreate);
}

TEST(EventAggregatorTest, APerObjectBudgetSuppressesFloodsAndCountsThem) {
  FakeClock clock;
  EventRecorderOptions options;
  options.per_object_burst = 3;
  options.per_object_qps = 1.0;  // one token a second
  EventAggregator agg(options, clock);
  EXPECT_EQ(agg.Observe(Failed("p", "x")).kind, Kind::kCreate);
  EXPECT_EQ(agg.Observe(Failed("p", "x")).kind, Kind::kUpdateSeries);
  EXPECT_EQ(agg.Observe(Failed("p", "x")).kind, Kind::kUpdateSeries);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(agg.Observe(Failed("p", "x")).kind, Kind::kSuppress);
  // Another object has its own budget.
  EXPECT_EQ(agg.Observe(Failed("q", "x")).kind, Kind::kCreate);
  clock.Advance(std::chrono::seconds(1));
  EventAggregator::Decision next = agg.Observe(Failed("p", "x"));
  EXPECT_EQ(next.kind, Kind::kUpdateSeries);
  EXPECT_EQ(next.count, 14);  // the suppressed ones are in the count
}

// A gang that waits many sessions records a FailedScheduling note per session for each pod (its
// figures change); when it starts, each pod's Scheduled must still be written.
TEST(EventAggregatorTest, AFloodOfOneReasonDoesNotSilenceAnother) {
  FakeClock clock;
  EventRecorderOptions options;  // a burst of 25, a token back in 5 minutes
  EventAggregator agg(options, clock);
  for (int i = 0; i < 40; ++i) {
    agg.Observe(Failed("p", "cpu free: " + std::to_string(i)));
    clock.Advance(std::chrono::seconds(1));
  }
  EXPECT_EQ(agg.Observe(Failed("p", "cpu free: 40")).kind, Kind::kSuppress);
  EventSpec scheduled = Failed("p", "Successfully assigned ns/p to node-1");
  scheduled.type = "Normal";
  scheduled.reason = "Scheduled";
  EXPECT_EQ(agg.Observe(scheduled).kind, Kind::kCreate);
}

// The time written is the one given (when Record() was called), never the time of writing: the
// reliability checker orders a pod's Scheduled event against node resizes by it, and a writer
// trailing by seconds made a bind before a shrink look like one after it.
TEST(EventRequestTest, StampsTheObservationNotTheWrite) {
  const EventRecorderOptions options;
  const Clock::WallTime observed{std::chrono::microseconds(1'765'000'000'123'456)};
  EventSpec scheduled = Failed("p", "Successfully assigned ns/p to node-1");
  scheduled.reason = "Scheduled";

  const HttpRequest create = EventRequest(scheduled, {Kind::kCreate, "p.1", 1}, observed, options);
  EXPECT_EQ(create.method, "POST");
  EXPECT_EQ(create.path, "/apis/events.k8s.io/v1/namespaces/ns/events");
  const auto event = nlohmann::json::parse(create.body);
  EXPECT_EQ(event["eventTime"], FormatMicroTime(observed));
  EXPECT_EQ(event["metadata"]["name"], "p.1");
  EXPECT_EQ(event["reason"], "Scheduled");
  EXPECT_EQ(event["regarding"]["uid"], "uid-p");

  const HttpRequest update =
      EventRequest(scheduled, {Kind::kUpdateSeries, "p.1", 3}, observed, options);
  EXPECT_EQ(update.path, "/apis/events.k8s.io/v1/namespaces/ns/events/p.1");
  const auto patch = nlohmann::json::parse(update.body);
  EXPECT_EQ(patch["series"]["count"], 3);
  EXPECT_EQ(patch["series"]["lastObservedTime"], FormatMicroTime(observed));
}

TEST(EventRecorderTest, RecordNeverWaitsForTheServerAndDropsWhenFull) {
  TransportOptions o;
  o.server = "https://127.0.0.1:1";  // nothing listens there: every write fails
  o.max_attempts = 1;
  auto transport = HttpTransport::Create(o);
  ASSERT_TRUE(transport.ok());
  ApiClient api(**transport);
  EventRecorderOptions options;
  options.queue_capacity = 0;  // nothing fits: every Record is a drop, and none waits
  EventRecorder recorder(api, options, RealClock::Instance());
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(recorder.Record(Failed("p", "x")));
  EXPECT_EQ(recorder.dropped(), 100U);
  recorder.Stop();
}

// A pod whose reason's figures change every session records a new note each time; the queue
// keeps only the newest per object and reason (found by hack/soak.sh: the queue filled towards
// its 10,000 events, 13 MB, while the writer waited on the client's QPS).
TEST(EventRecorderTest, ANewerEventForTheSameObjectAndReasonReplacesTheWaitingOne) {
  TransportOptions o;
  o.server = "https://127.0.0.1:1";
  o.max_attempts = 1;
  auto transport = HttpTransport::Create(o);
  ASSERT_TRUE(transport.ok());
  ApiClient api(**transport);
  EventRecorderOptions options;
  options.queue_capacity = 1;       // room for one object's event at a time
  options.per_object_burst = 1000;  // every note written is a write (none suppressed)
  EventRecorder recorder(api, options, RealClock::Instance());
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(recorder.Record(Failed("p", "cpu free: " + std::to_string(i))));
  }
  recorder.Flush();
  EXPECT_EQ(recorder.dropped(), 0U);
  // Each Record was written (and failed) or replaced the waiting one.
  EXPECT_EQ(recorder.failed() + recorder.coalesced(), 100U);
}

TEST(EventRecorderTest, FailedWritesAreCountedNotFatal) {
  TransportOptions o;
  o.server = "https://127.0.0.1:1";
  o.max_attempts = 1;
  auto transport = HttpTransport::Create(o);
  ASSERT_TRUE(transport.ok());
  ApiClient api(**transport);
  EventRecorder recorder(api, EventRecorderOptions{}, RealClock::Instance());
  EXPECT_TRUE(recorder.Record(Failed("p", "x")));
  recorder.Flush();
  EXPECT_EQ(recorder.failed(), 1U);
  EXPECT_EQ(recorder.written(), 0U);
}

}  // namespace
}  // namespace arbiter::k8s
