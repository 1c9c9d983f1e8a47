#include "arbiter/runtime/forecaster.h"

#include <algorithm>
#include <utility>

#include "arbiter/base/log.h"

namespace arbiter::runtime {

namespace {

constexpr auto kMinMove = std::chrono::minutes(1);
constexpr double kMinMoveFraction = 0.10;

}  // namespace

Forecaster::Forecaster(const Clock& clock, ForecasterOptions options)
    : clock_(clock), options_(std::move(options)) {}

Forecaster::~Forecaster() { Stop(); }

void Forecaster::Start() {
  if (options_.interval.count() <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void Forecaster::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // A snapshot offered just before the thread saw the stop is not kept past it.
  std::lock_guard lock(mu_);
  offered_ = nullptr;
  wanted_ = false;
}

void Forecaster::Offer(const std::shared_ptr<const Snapshot>& snapshot) {
  {
    std::lock_guard lock(mu_);
    if (!wanted_ || stop_ || snapshot == nullptr) return;
    wanted_ = false;
    offered_ = snapshot;
  }
  wake_.notify_all();
}

std::shared_ptr<const StartEstimates> Forecaster::Latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

Forecaster::Counts Forecaster::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

StartEstimates Forecaster::Publish(const sim::ForecastResult& forecast,
                                   const StartEstimates& previous) {
  StartEstimates out;
  for (const auto& [key, estimate] : forecast.estimates) {
    StartEstimate next;
    next.start = estimate.start;
    next.as_of = forecast.now;
    next.confidence = std::string(sim::ConfidenceName(estimate.confidence));
    next.assumptions = sim::DescribeAssumptions(estimate, forecast);
    auto old = previous.find(key);
    if (old != previous.end() && old->second.confidence == next.confidence &&
        old->second.start.has_value() == next.start.has_value()) {
      bool keep = !next.start.has_value();
      if (next.start) {
        const auto left = std::max(*old->second.start - forecast.now, Clock::WallTime::duration(0));
        const auto allowed = std::max<Clock::WallTime::duration>(
            kMinMove,
            std::chrono::duration_cast<Clock::WallTime::duration>(left * kMinMoveFraction));
        const auto moved = *next.start > *old->second.start ? *next.start - *old->second.start
                                                            : *old->second.start - *next.start;
        keep = moved <= allowed;
      }
      if (keep) {
        out.emplace(key, old->second);
        continue;
      }
    }
    out.emplace(key, std::move(next));
  }
  return out;
}

void Forecaster::RunForecast(const Snapshot& snapshot) {
  const bool waiting = std::any_of(snapshot.jobs.begin(), snapshot.jobs.end(),
                                   [&](const JobInfo& j) { return sim::IsWaiting(snapshot, j); });
  std::shared_ptr<const StartEstimates> previous = Latest();
  if (!waiting) {
    if (previous != nullptr && !previous->empty()) {
      std::lock_guard lock(mu_);
      latest_ = std::make_shared<const StartEstimates>();
    }
    return;
  }
  const Clock::WallTime now = clock_.Now();
  const auto started = std::chrono::steady_clock::now();
  StatusOr<sim::ForecastResult> result = sim::Forecast(
      snapshot, now, sim::TimingFromHints(snapshot, &history_, now), options_.forecast);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!result.ok()) {
    ARBITER_LOG(kWarning) << "start-time forecast: " << result.status();
    std::lock_guard lock(mu_);
    ++counts_.failures;
    return;
  }
  auto published = std::make_shared<const StartEstimates>(
      Publish(*result, previous != nullptr ? *previous : StartEstimates()));
  ARBITER_VLOG(1) << "start-time forecast: " << result->estimates.size() << " waiting jobs, "
                  << result->sessions << " sessions, " << seconds << " s, " << result->end_reason;
  std::lock_guard lock(mu_);
  latest_ = std::move(published);
  ++counts_.forecasts;
  counts_.last_seconds = seconds;
  counts_.last_sessions = result->sessions;
}

void Forecaster::Loop() {
  Clock::MonotonicTime last_forecast{};
  bool forecast_once = false;
  while (true) {
    std::shared_ptr<const Snapshot> snapshot;
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, options_.observe_every, [&] { return stop_; });
      if (stop_) return;
      wanted_ = true;
      wake_.wait(lock, [&] { return stop_ || offered_ != nullptr; });
      if (stop_) return;
      snapshot = std::exchange(offered_, nullptr);
    }
    history_.Observe(*snapshot);
    const Clock::MonotonicTime now = clock_.MonotonicNow();
    if (forecast_once && now - last_forecast < options_.interval) continue;
    forecast_once = true;
    last_forecast = now;
    RunForecast(*snapshot);
  }
}

}  // namespace arbiter::runtime
