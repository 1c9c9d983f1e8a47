#include "arbiter/framework/placement.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "arbiter/base/check.h"
#include "arbiter/framework/session.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter {

void FilterExtension::FitRange(const Session& session, TaskIndex task, NodeIndex first,
                               std::span<const std::uint8_t> in_play, const Refuse& refuse) const {
  for (std::size_t i = 0; i < in_play.size(); ++i) {
    if (in_play[i] == 0) continue;
    const NodeIndex n = NodeIndex::Of(first.pos() + i);
    if (FilterResult r = Fit(session, task, n); !r.fit()) refuse(n, std::move(r));
  }
}

void ScoreExtension::ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                                std::span<const std::uint8_t> in_play,
                                std::span<double> scores) const {
  for (std::size_t i = 0; i < in_play.size(); ++i) {
    if (in_play[i] != 0) scores[i] += Score(session, task, NodeIndex::Of(first.pos() + i));
  }
}

void ScoreExtension::ScoreRangeFirst(const Session& session, TaskIndex task, NodeIndex first,
                                     std::span<const std::uint8_t> in_play,
                                     std::span<double> scores) const {
  std::fill(scores.begin(), scores.end(), 0.0);
  ScoreRange(session, task, first, in_play, scores);
}

void FitErrors::Add(const FilterResult& result) { ++reasons_[result.reason]; }

std::string FitErrors::Message() const {
  std::string out = "0/" + std::to_string(nodes_) + " nodes are available";
  if (reasons_.empty()) return out + ".";
  // As kube-scheduler does: "<count> <reason>" strings sorted as text, for stable messages.
  std::vector<std::string> parts;
  parts.reserve(reasons_.size());
  for (const auto& [reason, count] : reasons_)
    parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  out += ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out + ".";
}

std::string PlacementFailure::Message(const Session& session, TaskIndex task, bool gang) const {
  std::string out = errors.Message();
  if (!short_resource.has_value() || short_nodes.empty()) return out;
  const ResourceSpace& space = session.snapshot().resources;
  const ResourceId r = *short_resource;
  constexpr std::size_t kListed = 5;
  // The first kListed of the nodes, most free first, then in their order (node order): a stable
  // message for unchanged state, so that repeated events aggregate. Only those are sorted: every
  // job that finds no node builds this message in every session.
  std::vector<std::pair<std::int64_t, std::size_t>> order;  // (minus free, place in short_nodes)
  order.reserve(short_nodes.size());
  for (std::size_t i = 0; i < short_nodes.size(); ++i) {
    order.emplace_back(-session.node_free(short_nodes[i]).Get(r), i);
  }
  const std::size_t listed = std::min(order.size(), gang ? kListed : std::size_t{1});
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(listed),
                    order.end());
  std::vector<NodeIndex> nodes;
  nodes.reserve(listed);
  for (std::size_t i = 0; i < listed; ++i) nodes.push_back(short_nodes[order[i].second]);
  const std::string requested = space.FormatAmount(r, session.task(task).request.Get(r));
  if (!gang) {
    out += " The pod requests " + requested + " " + space.Name(r) +
           "; the most free on one node is " +
           space.FormatAmount(r, session.node_free(nodes.front()).Get(r)) + " on " +
           session.node(nodes.front()).name() + ".";
    return out;
  }
  out += " Each pod requests " + requested + " " + space.Name(r) + "; " + space.Name(r) +
         " free on the nodes: ";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ", ";
    out += session.node(nodes[i]).name() + " " +
           space.FormatAmount(r, session.node_free(nodes[i]).Get(r));
  }
  if (short_nodes.size() > kListed) {
    out += ", ... (" + std::to_string(short_nodes.size() - kListed) + " more)";
  }
  return out + ".";
}

Placement::Placement(const Session& session, WorkerPool* pool)
    : session_(session), pool_(pool != nullptr && pool->threads() > 0 ? pool : nullptr) {
  AssignClasses();
}

std::uint64_t Placement::RefinedKey(TaskIndex task, std::uint64_t key) const {
  if (!session_.reservations().empty()) {
    key = HashCombine(key, session_.reservation_passes(session_.task(task).job));
  }
  for (const auto& tier : session_.plugins().placement_class) {
    for (const PlacementClassExtension* p : tier) {
      key = HashCombine(key, p->ClassKey(session_, task));
    }
  }
  return key;
}

bool Placement::SameConstraints(TaskIndex a, TaskIndex b) const {
  const PodSpec& sa = session_.task(a).pod->spec;
  const PodSpec& sb = session_.task(b).pod->spec;
  if (!(sa.node_selector == sb.node_selector && sa.tolerations == sb.tolerations &&
        sa.required_node_affinity == sb.required_node_affinity)) {
    return false;
  }
  if (session_.reservation_passes(session_.task(a).job) !=
      session_.reservation_passes(session_.task(b).job)) {
    return false;
  }
  for (const auto& tier : session_.plugins().placement_class) {
    for (const PlacementClassExtension* p : tier) {
      if (p->ClassKey(session_, a) != p->ClassKey(session_, b)) return false;
    }
  }
  return true;
}

bool Placement::SameNeeds(TaskIndex a, TaskIndex b) const {
  const TaskInfo& ta = session_.task(a);
  const TaskInfo& tb = session_.task(b);
  return ta.request == tb.request && ta.host_ports == tb.host_ports && SameConstraints(a, b);
}

void Placement::AssignClasses() {
  const std::size_t tasks = session_.snapshot().tasks.size();
  task_class_.assign(tasks, -1);
  task_constraint_class_.assign(tasks, -1);
  // Per hash, the class ids already made for it with one representative task each: a task joins
  // the first whose needs equal its own, so a hash collision makes a new class, never a wrong one.
  std::unordered_map<std::uint64_t, std::vector<std::pair<TaskIndex, std::int32_t>>> constraints;
  std::unordered_map<std::uint64_t, std::vector<std::pair<TaskIndex, std::vector<TaskIndex>>>>
      placements;
  for (std::size_t i = 0; i < tasks; ++i) {
    const auto t = TaskIndex::Of(i);
    if (session_.task_state(t) != TaskState::kPending) continue;
    const TaskInfo& info = session_.task(t);
    auto& same_constraints = constraints[RefinedKey(t, info.constraint_hash)];
    auto c = std::find_if(same_constraints.begin(), same_constraints.end(),
                          [&](const auto& entry) { return SameConstraints(entry.first, t); });
    if (c == same_constraints.end()) {
      same_constraints.emplace_back(t, static_cast<std::int32_t>(constraint_verdicts_.size()));
      constraint_verdicts_.emplace_back();
      c = std::prev(same_constraints.end());
    }
    task_constraint_class_[i] = c->second;
    auto& same_needs = placements[RefinedKey(t, info.placement_hash)];
    auto p = std::find_if(same_needs.begin(), same_needs.end(),
                          [&](const auto& entry) { return SameNeeds(entry.first, t); });
    if (p == same_needs.end()) {
      same_needs.emplace_back(t, std::vector<TaskIndex>{t});
    } else {
      p->second.push_back(t);
    }
  }
  for (const auto& [hash, classes] : placements) {
    for (const auto& [first, members] : classes) {
      if (members.size() < 2) continue;
      const auto id = static_cast<std::int32_t>(class_verdicts_.size());
      class_verdicts_.emplace_back();
      class_verdicts_.back().pending = static_cast<std::int32_t>(members.size());
      for (TaskIndex t : members) task_class_[t.pos()] = id;
    }
  }
}

Placement::ClassVerdicts* Placement::VerdictsFor(TaskIndex task) {
  const std::int32_t cls = task_class_[task.pos()];
  if (cls < 0) return nullptr;
  ClassVerdicts& verdicts = class_verdicts_[static_cast<std::size_t>(cls)];
  // Arrays are made when the class is first looked at (again after it was freed); a filled class
  // keeps them, even when they are empty (a cluster of no nodes).
  if (!verdicts.filled && verdicts.version.empty()) {
    // The arrays of the class placed last, when there is one: no allocation. Only versions
    // need clearing; a score or result is read only once its version says it is current.
    const auto nodes = static_cast<std::size_t>(session_.node_count());
    verdicts.version = std::move(spare_.version);
    verdicts.score = std::move(spare_.score);
    verdicts.result = std::move(spare_.result);
    verdicts.block_best = std::move(spare_.block_best);
    verdicts.best = std::move(spare_.best);
    verdicts.version.assign(nodes, 0);
    verdicts.score.resize(nodes);
    verdicts.result.resize(nodes);
    verdicts.block_best.resize((nodes + kBestBlock - 1) / kBestBlock);
  }
  return &verdicts;
}

std::int32_t Placement::Intern(FilterResult result) {
  std::unique_lock lock(intern_mu_, std::defer_lock);
  if (parallel_) lock.lock();
  const std::int32_t short_id = result.short_resource.has_value() ? *result.short_resource : -1;
  auto [it, inserted] =
      interned_ids_.try_emplace(std::make_tuple(result.code, result.reason, short_id),
                                static_cast<std::int32_t>(interned_.size()));
  if (inserted) interned_.push_back(std::move(result));
  return it->second;
}

std::int32_t Placement::NodeConstraint(TaskIndex task, NodeIndex node) {
  const std::int32_t cls = task_constraint_class_[task.pos()];
  std::int32_t* cached = nullptr;
  if (cls >= 0) {
    std::vector<std::int32_t>& verdicts = constraint_verdicts_[static_cast<std::size_t>(cls)];
    if (verdicts.empty())
      verdicts.assign(static_cast<std::size_t>(session_.node_count()), kUnknown);
    cached = &verdicts[node.pos()];
    if (*cached != kUnknown) return *cached;
  }
  std::int32_t verdict = kFit;
  if (const ActiveReservation* r = session_.ReservedAgainst(session_.task(task).job, node)) {
    verdict = Intern(
        FilterResult::Unresolvable("node(s) reserved for gang " + session_.job(r->job).Key()));
  }
  for (const auto& tier : session_.plugins().filter) {
    if (verdict != kFit) break;
    for (const FilterExtension* p : tier) {
      FilterResult r = p->NodeConstraint(session_, task, node);
      if (!r.fit()) {
        verdict = Intern(std::move(r));
        break;
      }
    }
  }
  if (cached != nullptr) *cached = verdict;
  return verdict;
}

FilterResult Placement::Fit(TaskIndex task, NodeIndex node) const {
  for (const auto& tier : session_.plugins().filter) {
    for (const FilterExtension* p : tier) {
      FilterResult r = p->Fit(session_, task, node);
      if (!r.fit()) return r;
    }
  }
  return FilterResult::Fit();
}

double Placement::Score(TaskIndex task, NodeIndex node) const {
  double total = 0;
  for (const auto& tier : session_.plugins().score) {
    for (const ScoreExtension* p : tier) total += p->Score(session_, task, node);
  }
  return total;
}

FilterResult Placement::Filter(TaskIndex task, NodeIndex node) {
  ++nodes_filtered_;
  if (const std::int32_t v = NodeConstraint(task, node); v != kFit) {
    return interned_[static_cast<std::size_t>(v)];
  }
  return Fit(task, node);
}

void Placement::PrepareConstraints(TaskIndex task) {
  const std::int32_t cls = task_constraint_class_[task.pos()];
  if (cls < 0) return;
  std::vector<std::int32_t>& verdicts = constraint_verdicts_[static_cast<std::size_t>(cls)];
  if (verdicts.empty()) verdicts.assign(static_cast<std::size_t>(session_.node_count()), kUnknown);
}

void Placement::ParallelOverBlocks(
    const std::function<void(std::int32_t, std::int32_t, std::int64_t&)>& body) {
  const std::int32_t nodes = session_.node_count();
  const std::int32_t blocks = (nodes + kBestBlock - 1) / kBestBlock;
  parallel_ = true;
  pool_->ParallelFor(blocks, kParallelGrain / kBestBlock, [&](std::int32_t b, std::int32_t e) {
    std::int64_t filtered = 0;
    body(b * kBestBlock, std::min(e * kBestBlock, nodes), filtered);
    std::lock_guard lock(intern_mu_);
    nodes_filtered_ += filtered;
  });
  parallel_ = false;
}

void Placement::RefreshAll(TaskIndex task, ClassVerdicts& verdicts) {
  PrepareConstraints(task);
  ParallelOverBlocks([&](std::int32_t b, std::int32_t e, std::int64_t& filtered) {
    RefreshRange(task, verdicts, b, e, filtered);
  });
}

void Placement::RefreshRange(TaskIndex task, ClassVerdicts& verdicts, std::int32_t begin,
                             std::int32_t end, std::int64_t& filtered) {
  const std::uint64_t* const versions = session_.node_versions().data();
  for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
    verdicts.version[i] = versions[i] + 1;
  }
  EvaluateRange(task, begin, end, verdicts.result.data(), verdicts.score.data(), filtered,
                verdicts.block_best.data());
}

std::int32_t Placement::EvaluateAll(TaskIndex task, std::int32_t* result, double* score) {
  PrepareConstraints(task);
  // Each range's best (at the index of its first block), then the best of those in node order:
  // the scan's choice.
  std::vector<std::int32_t> bests(
      (static_cast<std::size_t>(session_.node_count()) + kBestBlock - 1) / kBestBlock, -1);
  ParallelOverBlocks([&](std::int32_t b, std::int32_t e, std::int64_t& filtered) {
    bests[static_cast<std::size_t>(b / kBestBlock)] =
        EvaluateRange(task, b, e, result, score, filtered);
  });
  std::int32_t best = -1;
  for (std::int32_t b : bests) {
    if (b >= 0 && (best < 0 || score[b] > score[best])) best = b;
  }
  return best;
}

namespace {

// Four doubles, and four indexes, one instruction each where the machine has AVX.
using Lanes = double __attribute__((vector_size(32)));
using Indexes = std::int64_t __attribute__((vector_size(32)));

// The first of [0, count) holding the highest score above -inf, or -1: the node the scan in node
// order picks (a NaN never beats anything, nor -inf the scan's start). Sixteen nodes per step in
// four independent lanes of four, so that no step waits for the one before.
[[gnu::target_clones("avx2", "default")]] std::int32_t FirstHighest(const double* __restrict score,
                                                                    std::size_t count) {
  const double none = -std::numeric_limits<double>::infinity();
  constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(double);
  constexpr std::size_t kWays = 4;
  // Per lane, its highest score and where that first was (-1: nowhere yet).
  Lanes top[kWays];
  Indexes where[kWays];
  for (std::size_t w = 0; w < kWays; ++w) {
    top[w] = Lanes{} + none;
    where[w] = Indexes{} - 1;
  }
  Indexes at = {0, 1, 2, 3};
  std::size_t i = 0;
  for (; i + kWays * kLanes <= count; i += kWays * kLanes) {
    for (std::size_t w = 0; w < kWays; ++w) {
      Lanes v;
      std::memcpy(&v, score + i + w * kLanes, sizeof(Lanes));
      const Indexes higher = v > top[w];  // false for a NaN
      top[w] = higher ? v : top[w];
      where[w] = higher ? at + static_cast<std::int64_t>(w * kLanes) : where[w];
    }
    at += static_cast<std::int64_t>(kWays * kLanes);
  }
  // Of lanes of equal highest, the lowest index is the first.
  double highest = none;
  std::int64_t first = -1;
  for (std::size_t w = 0; w < kWays; ++w) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      if (where[w][l] < 0) continue;
      if (top[w][l] > highest || (top[w][l] == highest && where[w][l] < first)) {
        highest = top[w][l];
        first = where[w][l];
      }
    }
  }
  for (; i < count; ++i) {
    if (score[i] > highest) {
      highest = score[i];
      first = static_cast<std::int64_t>(i);
    }
  }
  return static_cast<std::int32_t>(first);
}

// Copies a block's cached verdicts, each node in play where its verdict is `fit`. Whether any
// verdict was `unknown`.
[[gnu::target_clones("avx2", "default")]] bool CopyVerdicts(const std::int32_t* __restrict cached,
                                                            std::size_t count, std::int32_t fit,
                                                            std::int32_t unknown,
                                                            std::int32_t* __restrict result,
                                                            std::uint8_t* __restrict in_play) {
  std::memcpy(result, cached, count * sizeof(std::int32_t));
  std::int32_t any_unknown = 0;
  for (std::size_t i = 0; i < count; ++i) {
    in_play[i] = cached[i] == fit ? 1 : 0;
    any_unknown |= cached[i] == unknown ? 1 : 0;
  }
  return any_unknown != 0;
}

// Scores of nodes not in play become -inf: never the best.
[[gnu::target_clones("avx2", "default")]] void ScoreOutOfPlay(
    const std::uint8_t* __restrict in_play, double* __restrict score, std::size_t count) {
  const double none = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < count; ++i) score[i] = in_play[i] != 0 ? score[i] : none;
}

}  // namespace

std::int32_t Placement::EvaluateRange(TaskIndex task, std::int32_t begin, std::int32_t end,
                                      std::int32_t* result, double* score, std::int64_t& filtered,
                                      std::int32_t* block_best) {
  ARBITER_DCHECK(block_best == nullptr || begin % kBestBlock == 0);
  filtered += end - begin;
  const std::int32_t cls = task_constraint_class_[task.pos()];
  const std::int32_t* cached = nullptr;
  if (cls >= 0 && !constraint_verdicts_[static_cast<std::size_t>(cls)].empty()) {
    cached = constraint_verdicts_[static_cast<std::size_t>(cls)].data();
  }
  // A block at a time, so that what each plugin reads and writes stays in the CPU's first cache
  // between one plugin and the next.
  std::array<std::uint8_t, kBlock> in_play;
  std::int32_t best = -1;
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::int32_t b = begin; b < end; b += kBlock) {
    const auto first = static_cast<std::size_t>(b);
    const auto count = std::min<std::size_t>(kBlock, static_cast<std::size_t>(end - b));
    // Node constraints (cached per constraint class: read inline, computed on a miss), then each
    // filter plugin over the nodes the ones before it kept: a node's result is that of the first
    // plugin refusing it, as in Filter.
    if (cached == nullptr ||
        CopyVerdicts(cached + first, count, kFit, kUnknown, result + first, in_play.data())) {
      for (std::size_t i = 0; i < count; ++i) {
        std::int32_t& v = result[first + i];
        if (cached == nullptr || v == kUnknown) v = NodeConstraint(task, NodeIndex::Of(first + i));
        in_play[i] = v == kFit ? 1 : 0;
      }
    }
    const std::span<const std::uint8_t> play(in_play.data(), count);
    const FilterExtension::Refuse refuse = [&](NodeIndex n, FilterResult r) {
      result[n.pos()] = Intern(std::move(r));
      in_play[n.pos() - first] = 0;
    };
    for (const auto& tier : session_.plugins().filter) {
      for (const FilterExtension* p : tier) p->FitRange(session_, task, NodeIndex(b), play, refuse);
    }
    // Summed plugin by plugin from 0, as Score sums them: the same doubles.
    double* const block_score = score + first;
    const std::span<double> scores(block_score, count);
    bool set = false;
    for (const auto& tier : session_.plugins().score) {
      for (const ScoreExtension* p : tier) {
        if (set) {
          p->ScoreRange(session_, task, NodeIndex(b), play, scores);
        } else {
          p->ScoreRangeFirst(session_, task, NodeIndex(b), play, scores);
          set = true;
        }
      }
    }
    if (!set) std::fill_n(block_score, count, 0.0);
    // The best of each run of kBestBlock nodes, then of the range: the scan's choice.
    ScoreOutOfPlay(in_play.data(), block_score, count);
    for (std::size_t run = 0; run < count; run += kBestBlock) {
      const std::int32_t local =
          FirstHighest(block_score + run, std::min<std::size_t>(kBestBlock, count - run));
      const std::int32_t node = local < 0 ? -1 : b + static_cast<std::int32_t>(run) + local;
      if (block_best != nullptr) block_best[(first + run) / kBestBlock] = node;
      if (node >= 0 && score[node] > best_score) {
        best = node;
        best_score = score[node];
      }
    }
  }
  return best;
}

void Placement::Refresh(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts) {
  Refresh(task, node, verdicts, nodes_filtered_);
}

void Placement::Refresh(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts,
                        std::int64_t& filtered) {
  const auto ni = node.pos();
  ++filtered;
  verdicts.version[ni] = session_.node_version(node) + 1;
  // A refused node scores -inf, so that a scan of scores alone passes it over.
  verdicts.score[ni] = -std::numeric_limits<double>::infinity();
  if (const std::int32_t v = NodeConstraint(task, node); v != kFit) {
    verdicts.result[ni] = v;
    return;
  }
  FilterResult r = Fit(task, node);
  if (r.fit()) {
    verdicts.result[ni] = kFit;
    verdicts.score[ni] = Score(task, node);
    return;
  }
  verdicts.result[ni] = Intern(std::move(r));
}

void Placement::NoteFailure(const FilterResult& r, NodeIndex node,
                            PlacementFailure* failure) const {
  failure->errors.Add(r);
  if (!r.short_resource.has_value()) return;
  if (!failure->short_resource.has_value()) failure->short_resource = r.short_resource;
  if (*failure->short_resource == *r.short_resource) failure->short_nodes.push_back(node);
}

std::optional<NodeIndex> Placement::PickNodeWithin(TaskIndex task, PlacementFailure* failure,
                                                   const std::vector<NodeIndex>& within) {
  NodeIndex best = kNoNode;
  double best_score = -std::numeric_limits<double>::infinity();
  ClassVerdicts* verdicts = VerdictsFor(task);
  const std::uint64_t* const versions = session_.node_versions().data();
  for (NodeIndex n : within) {
    double score = 0;
    if (verdicts != nullptr) {
      if (verdicts->version[n.pos()] != versions[n.pos()] + 1) Refresh(task, n, *verdicts);
      const std::int32_t result = verdicts->result[n.pos()];
      if (result != kFit) {
        if (failure != nullptr) {
          NoteFailure(interned_[static_cast<std::size_t>(result)], n, failure);
        }
        continue;
      }
      score = verdicts->score[n.pos()];
    } else {
      FilterResult r = Filter(task, n);
      if (!r.fit()) {
        if (failure != nullptr) NoteFailure(r, n, failure);
        continue;
      }
      score = Score(task, n);
    }
    if (score > best_score) {
      best = n;
      best_score = score;
    }
  }
  if (best != kNoNode) return best;
  if (failure != nullptr) failure->errors.AddNodes(static_cast<std::int32_t>(within.size()));
  return std::nullopt;
}

std::optional<NodeIndex> Placement::PickNode(TaskIndex task, PlacementFailure* failure,
                                             const std::vector<NodeIndex>* within) {
  if (within != nullptr) return PickNodeWithin(task, failure, *within);
  const std::int32_t nodes = session_.node_count();
  NodeIndex best = kNoNode;
  if (ClassVerdicts* verdicts = VerdictsFor(task)) {
    const std::vector<NodeIndex>& changes = session_.node_changes();
    // A class's first look fills every entry (the pool does, when there is one) and builds the
    // tournament; later looks replay the nodes changed since, unless more changed than there
    // are nodes (many undos since the class last looked): then refreshing and rebuilding costs
    // less.
    if (!verdicts->filled || changes.size() - verdicts->seen > static_cast<std::size_t>(nodes)) {
      if (pool_ != nullptr && nodes >= kParallelNodes) {
        RefreshAll(task, *verdicts);
      } else {
        PrepareConstraints(task);
        RefreshRange(task, *verdicts, 0, nodes, nodes_filtered_);
      }
      BuildBest(*verdicts);
      verdicts->seen = changes.size();
      verdicts->filled = true;
    }
    for (; verdicts->seen < changes.size(); ++verdicts->seen) {
      UpdateBest(task, changes[verdicts->seen], *verdicts);
    }
    if (const std::int32_t winner = verdicts->best[1]; winner >= 0) return NodeIndex(winner);
    if (failure != nullptr) {
      // A node that fits but scores -inf or NaN is not eligible, nor refused: it has no reason.
      for (NodeIndex n : NodeIndex::Range(nodes)) {
        if (const std::int32_t r = verdicts->result[n.pos()]; r != kFit) {
          NoteFailure(interned_[static_cast<std::size_t>(r)], n, failure);
        }
      }
      failure->errors.AddNodes(nodes);
    }
    return std::nullopt;
  }
  // A task alone in its class: every node evaluated in one batch (by the pool when there is one),
  // the best chosen in node order: the same node whichever way it was evaluated. Every entry of
  // `result` is written (a refusal, or kFit), and `score` where it is kFit.
  const auto count = static_cast<std::size_t>(nodes);
  auto result = std::make_unique_for_overwrite<std::int32_t[]>(count);
  auto score = std::make_unique_for_overwrite<double[]>(count);
  std::int32_t winner = -1;
  if (pool_ != nullptr && nodes >= kParallelNodes) {
    winner = EvaluateAll(task, result.get(), score.get());
  } else {
    PrepareConstraints(task);
    winner = EvaluateRange(task, 0, nodes, result.get(), score.get(), nodes_filtered_);
  }
  if (winner >= 0) best = NodeIndex(winner);
  if (best != kNoNode) return best;
  if (failure != nullptr) {
    for (NodeIndex n : NodeIndex::Range(nodes)) {
      if (result[n.pos()] != kFit) {
        NoteFailure(interned_[static_cast<std::size_t>(result[n.pos()])], n, failure);
      }
    }
    failure->errors.AddNodes(nodes);
  }
  return std::nullopt;
}

namespace {

constexpr std::int32_t kNone = -1;

// The better of two tournament entries (node indexes, kNone for no node) by their scores: the
// higher, ties to the lower index.
inline std::int32_t Better(std::int32_t a, std::int32_t b, const double* score) {
  if (a < 0) return b;
  if (b < 0) return a;
  const double sa = score[a];
  const double sb = score[b];
  if (sa != sb) return sa > sb ? a : b;
  return a < b ? a : b;
}

}  // namespace

void Placement::BuildBest(ClassVerdicts& verdicts) {
  const std::size_t blocks = verdicts.block_best.size();
  // Every entry from 1 on is written below (entry 0 is unused).
  verdicts.best.resize(std::max<std::size_t>(2 * blocks, 2));
  verdicts.best[1] = kNone;
  std::copy(verdicts.block_best.begin(), verdicts.block_best.end(),
            verdicts.best.begin() + static_cast<std::ptrdiff_t>(blocks));
  const double* const score = verdicts.score.data();
  for (std::size_t i = blocks; i-- > 1;) {
    verdicts.best[i] = Better(verdicts.best[2 * i], verdicts.best[2 * i + 1], score);
  }
}

void Placement::UpdateBest(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts) {
  const std::size_t ni = node.pos();
  if (verdicts.version[ni] != session_.node_version(node) + 1) Refresh(task, node, verdicts);
  // The node's block scanned again (a refused node scores -inf), then the block's path.
  const std::size_t block = ni / kBestBlock;
  const std::size_t from = block * kBestBlock;
  const std::int32_t local =
      FirstHighest(verdicts.score.data() + from,
                   std::min<std::size_t>(kBestBlock, verdicts.score.size() - from));
  verdicts.block_best[block] = local < 0 ? kNone : static_cast<std::int32_t>(from) + local;
  std::size_t i = verdicts.block_best.size() + block;
  verdicts.best[i] = verdicts.block_best[block];
  const double* const score = verdicts.score.data();
  for (i /= 2; i >= 1; i /= 2) {
    verdicts.best[i] = Better(verdicts.best[2 * i], verdicts.best[2 * i + 1], score);
  }
}

void Placement::OnPlaced(TaskIndex task) {
  if (const std::int32_t cls = task_class_[task.pos()]; cls >= 0) {
    ClassVerdicts& verdicts = class_verdicts_[static_cast<std::size_t>(cls)];
    if (--verdicts.pending == 0) {  // nobody left to ask: its arrays serve the next class
      spare_ = std::move(verdicts);
      verdicts = ClassVerdicts();
    }
  }
}

void Placement::OnUnplaced(TaskIndex task) {
  if (const std::int32_t cls = task_class_[task.pos()]; cls >= 0) {
    ++class_verdicts_[static_cast<std::size_t>(cls)].pending;
  }
}

}  // namespace arbiter
