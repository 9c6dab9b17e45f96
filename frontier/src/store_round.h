#pragma once
// Group commit of Store writes for RESP commands: the commands of one
// connection round that write to the same Store fill one WriteGroup, which
// the connection commits once before sending the round's replies.

#include <memory>

#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

class StoreRoundCommit : public RoundCommit {
 public:
  explicit StoreRoundCommit(Store* store) : group_(store) {}
  WriteGroup& group() { return group_; }
  Status Commit() override {
    Status st = group_.Commit();
    if (st.ok()) return st;
    return Status::IoError("ERR could not persist the write: " + st.message());
  }

 private:
  WriteGroup group_;
};

// The round's WriteGroup for `store`, joined by the running command (its
// reply waits for the group's commit), or null when `ctx` has no round.
inline WriteGroup* JoinStoreRound(CallContext& ctx, Store& store) {
  auto* c = ctx.JoinCommit<StoreRoundCommit>(
      &store, [&store] { return std::make_unique<StoreRoundCommit>(&store); });
  return c ? &c->group() : nullptr;
}

}  // namespace crawlfront
