#include "arbiter/ctl/whatif.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "arbiter/model/pod_group.h"

namespace arbiter::ctl {
namespace {

const Clock::WallTime kNow{std::chrono::seconds(1'750'000'000)};

std::vector<nlohmann::json> Docs(const std::string& yaml) {
  StatusOr<std::vector<nlohmann::json>> docs = ParseManifests(yaml, "job.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status();
  return docs.ok() ? *docs : std::vector<nlohmann::json>();
}

TEST(ParseManifestsTest, ReadsEveryDocumentWithKubectlsScalars) {
  const auto docs = Docs(
      "kind: Pod\nmetadata: {name: a}\nspec: {priority: 10, x: 1.5, y: true, z: '10', w: ~}\n"
      "---\n---\nkind: Pod\n");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0]["spec"]["priority"], 10);
  EXPECT_EQ(docs[0]["spec"]["x"], 1.5);
  EXPECT_EQ(docs[0]["spec"]["y"], true);
  EXPECT_EQ(docs[0]["spec"]["z"], "10");  // quoted: a string
  EXPECT_TRUE(docs[0]["spec"]["w"].is_null());
}

TEST(ParseManifestsTest, NamesTheLineOfBadYaml) {
  StatusOr<std::vector<nlohmann::json>> docs = ParseManifests("a: [1, 2\nb: c\n", "job.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("job.yaml:"), std::string::npos) << docs.status();
}

constexpr const char* kGang = R"(
apiVersion: arbiter.dev/v1alpha1
kind: PodGroup
metadata: {name: train, annotations: {arbiter.dev/run-for: 30m}}
spec: {minMember: 2, queue: team}
---
apiVersion: v1
kind: Pod
metadata: {name: train-0}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: train-1, labels: {arbiter.dev/pod-group: train}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";

TEST(WhatIfJobTest, APodGroupAndItsPods) {
  StatusOr<WhatIfJob> job = WhatIfJobFrom(Docs(kGang), "ml", "arbiter", kNow);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->kind, "PodGroup");
  EXPECT_EQ(job->key, "ml/train");
  ASSERT_TRUE(job->job.group.has_value());
  EXPECT_EQ(job->job.group->spec.min_member, 2);
  ASSERT_EQ(job->job.pods.size(), 2u);
  for (const Pod& pod : job->job.pods) {
    EXPECT_EQ(pod.meta.namespace_name, "ml");
    EXPECT_EQ(PodGroupNameOf(pod), "train");  // put into the group when it named none
    EXPECT_EQ(pod.spec.scheduler_name, "arbiter");
    EXPECT_FALSE(pod.meta.uid.empty());
  }
  EXPECT_EQ(job->job.run_time.duration, std::chrono::minutes(30));
}

TEST(WhatIfJobTest, ABatchJobMakesItsGroupAndPodsAsTheControllerWould) {
  StatusOr<WhatIfJob> job = WhatIfJobFrom(Docs(R"(
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: mpi}
spec:
  queue: team
  tasks:
    - name: launcher
      replicas: 1
      template: {spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}}
    - name: worker
      replicas: 3
      template: {spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}}
)"),
                                          "ml", "arbiter", kNow);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->kind, "BatchJob");
  EXPECT_EQ(job->key, "ml/mpi");
  ASSERT_TRUE(job->job.group.has_value());
  EXPECT_EQ(job->job.group->spec.min_member, 4);
  EXPECT_EQ(job->job.group->spec.queue, "team");
  EXPECT_EQ(job->job.pods.size(), 4u);
}

TEST(WhatIfJobTest, BadInputNamesTheDocument) {
  StatusOr<WhatIfJob> job =
      WhatIfJobFrom(Docs("kind: Service\nmetadata: {name: s}\n"), "ml", "arbiter", kNow);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().message(), "document 1 (Service s): kind: want PodGroup, Pod or BatchJob");
  job = WhatIfJobFrom(Docs("kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n"),
                      "ml", "arbiter", kNow);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().message(), "2 pods and no PodGroup: give the PodGroup that gangs them");
  job = WhatIfJobFrom(Docs("kind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 1}\n"), "ml",
                      "arbiter", kNow);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().message(), "no pods: the job needs pods to be placed");
  job = WhatIfJobFrom(
      Docs("kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: "
           "{cpu: lots}}}]}\n"),
      "ml", "arbiter", kNow);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().message().rfind("document 1 (Pod a): ", 0), 0u) << job.status();
}

TEST(FormatWhatIfTest, SaysWhenHowSureAndWhatItAssumed) {
  StatusOr<WhatIfJob> job = WhatIfJobFrom(Docs(kGang), "ml", "arbiter", kNow);
  ASSERT_TRUE(job.ok());
  sim::ForecastResult forecast;
  forecast.now = kNow;
  forecast.until = kNow + std::chrono::minutes(12);
  forecast.sessions = 7;
  forecast.end_reason = "every waiting job starts";
  sim::JobEstimate& e = forecast.estimates["ml/train"];
  e.job = "ml/train";
  e.start = kNow + std::chrono::minutes(12);
  e.rests_on[sim::RunTimeSource::kHint] = 2;
  e.run_time_source = sim::RunTimeSource::kHint;
  EXPECT_EQ(FormatWhatIf(*job, forecast),
            "PodGroup ml/train (not submitted): would start in 12m (" + FormatRfc3339(*e.start) +
                "), confidence High\n"
                "  assumes:  after 2 job ends (2 by run-for); its own run time: run-for; jobs "
                "submitted later are not foreseen\n"
                "  forecast: 7 sessions to " +
                FormatRfc3339(forecast.until) + " (every waiting job starts)\n");
}

}  // namespace
}  // namespace arbiter::ctl
