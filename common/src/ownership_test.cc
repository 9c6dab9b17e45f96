#include "crawlfront/common/ownership.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "crawlfront/common/url.h"

namespace crawlfront {
namespace {

constexpr uint32_t kPartitions = 1024;

std::vector<std::string> Members(const std::string& prefix, int n, int first = 1) {
  std::vector<std::string> m;
  for (int i = first; i < first + n; ++i) m.push_back(prefix + std::to_string(i));
  return m;
}

// Naming schemes an operator might use; balance must hold for each.
const std::vector<std::string> kPrefixes = {"127.0.0.1:700", "10.0.0.", "frontier-",
                                            "node"};

// Owner names (not indices) of every partition.
std::vector<std::string> OwnerNames(const std::vector<std::string>& members) {
  std::vector<std::string> names;
  for (size_t i : PartitionOwners(kPartitions, members)) names.push_back(members[i]);
  return names;
}

TEST(OwnershipTest, CrawlHostHashNamespacesCrawls) {
  EXPECT_EQ(CrawlHostHash("default", "example.com"), HostHash("example.com"));
  EXPECT_EQ(CrawlHostHash("", "example.com"), HostHash("example.com"));
  EXPECT_EQ(CrawlHostHash("c1", "example.com"), HostHash("c1\nexample.com"));
  EXPECT_NE(CrawlHostHash("c1", "example.com"), CrawlHostHash("c2", "example.com"));
}

TEST(OwnershipTest, PartitionIsTheLowBitsAndPinned) {
  EXPECT_EQ(PartitionOfHost(0x12345, 64), 0x05u);
  EXPECT_EQ(PartitionOfHost(0xFFFFFFFFFFFFFFFFull, 1024), 1023u);
  EXPECT_EQ(PartitionOfHost(0xFFFFFFFFFFFFFFFFull, 1), 0u);
  // Partitions are persisted in RocksDB keys: these values must never change.
  EXPECT_EQ(PartitionOfHost(CrawlHostHash("", "example.com"), kPartitions), 883u);
  EXPECT_EQ(PartitionOfHost(CrawlHostHash("c1", "example.com"), kPartitions), 951u);
}

TEST(OwnershipTest, OwnersAreDeterministicAndPinned) {
  auto members = Members("127.0.0.1:700", 3);
  EXPECT_EQ(PartitionOwners(kPartitions, members), PartitionOwners(kPartitions, members));
  // Where a partition's data lives must not change between releases.
  std::vector<size_t> first8(8);
  for (uint32_t p = 0; p < 8; ++p) first8[p] = OwnerOfPartition(p, members);
  EXPECT_EQ(first8, (std::vector<size_t>{1, 1, 1, 1, 2, 0, 2, 1}));
}

TEST(OwnershipTest, OneMemberOwnsEverything) {
  std::vector<std::string> one = {"127.0.0.1:7001"};
  for (uint32_t p = 0; p < kPartitions; ++p) ASSERT_EQ(OwnerOfPartition(p, one), 0u);
}

TEST(OwnershipTest, OrderDoesNotMatter) {
  auto members = Members("127.0.0.1:700", 4);
  auto want = OwnerNames(members);
  std::sort(members.begin(), members.end());
  int permutations = 0;
  do {
    ASSERT_EQ(OwnerNames(members), want)
        << members[0] << " " << members[1] << " " << members[2] << " " << members[3];
    ++permutations;
  } while (std::next_permutation(members.begin(), members.end()));
  EXPECT_EQ(permutations, 24);
}

TEST(OwnershipTest, RepeatedNameIsOneMember) {
  std::vector<std::string> members = {"a:1", "b:1", "a:1"};
  for (uint32_t p = 0; p < kPartitions; ++p) ASSERT_NE(OwnerOfPartition(p, members), 2u);
}

TEST(OwnershipTest, BalancedWithinTwentyPercent) {
  for (const auto& prefix : kPrefixes) {
    for (int n = 2; n <= 5; ++n) {
      auto members = Members(prefix, n);
      std::vector<int> count(n);
      for (size_t i : PartitionOwners(kPartitions, members)) ++count[i];
      double fair = static_cast<double>(kPartitions) / n;
      for (int i = 0; i < n; ++i) {
        EXPECT_GE(count[i], 0.8 * fair) << members[i] << " of " << n;
        EXPECT_LE(count[i], 1.2 * fair) << members[i] << " of " << n;
      }
    }
  }
}

TEST(OwnershipTest, AddingAMemberMovesOnlyWhatItWins) {
  for (const auto& prefix : kPrefixes) {
    for (int n = 1; n <= 4; ++n) {
      auto before = Members(prefix, n);
      auto after = Members(prefix, n + 1);
      const std::string& newcomer = after.back();
      auto old_owners = OwnerNames(before), new_owners = OwnerNames(after);
      int moved = 0;
      for (uint32_t p = 0; p < kPartitions; ++p) {
        if (old_owners[p] == new_owners[p]) continue;
        ++moved;
        ASSERT_EQ(new_owners[p], newcomer) << "partition " << p << " moved elsewhere";
      }
      double fair = static_cast<double>(kPartitions) / (n + 1);
      EXPECT_GE(moved, 0.8 * fair) << prefix << " " << n << "->" << n + 1;
      EXPECT_LE(moved, 1.2 * fair) << prefix << " " << n << "->" << n + 1;
    }
  }
}

TEST(OwnershipTest, RemovingAMemberMovesOnlyItsPartitions) {
  for (const auto& prefix : kPrefixes) {
    for (int n = 2; n <= 5; ++n) {
      auto before = Members(prefix, n);
      for (int gone = 0; gone < n; ++gone) {
        auto after = before;
        after.erase(after.begin() + gone);
        auto old_owners = OwnerNames(before), new_owners = OwnerNames(after);
        for (uint32_t p = 0; p < kPartitions; ++p) {
          if (old_owners[p] == before[gone]) {
            ASSERT_NE(new_owners[p], before[gone]);
          } else {
            ASSERT_EQ(new_owners[p], old_owners[p]) << "partition " << p;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace crawlfront
