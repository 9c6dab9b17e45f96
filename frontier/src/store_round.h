#pragma once
// Group commit of Store writes for RESP commands: the commands that write to
// the same Store fill one WriteGroup per io thread, shared by every
// connection of that thread whose round runs before the group commits. Each
// connection commits before sending its round's replies; the first commit
// writes the group, the others find it written (see RespSession::Run, which
// lets the thread's other ready connections run before committing).

#include <memory>
#include <unordered_map>

#include "crawlfront/frontier/resp_server.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {

class StoreRoundCommit : public RoundCommit {
 public:
  struct Shared {
    explicit Shared(Store* store) : group(store) {}
    WriteGroup group;
    bool committed = false;
    Status status;
  };

  explicit StoreRoundCommit(std::shared_ptr<Shared> shared)
      : shared_(std::move(shared)) {}
  WriteGroup& group() { return shared_->group; }
  Status Commit() override {
    if (!shared_->committed) {
      shared_->committed = true;
      Status st = shared_->group.Commit();
      if (!st.ok())
        st = Status::IoError("ERR could not persist the write: " + st.message());
      shared_->status = st;
    }
    return shared_->status;
  }

  // The open group of `store` on this thread, or a new one. Held weakly: a
  // group no round holds any more is gone (every round commits its groups).
  static std::shared_ptr<Shared> OpenGroup(Store* store) {
    thread_local std::unordered_map<Store*, std::weak_ptr<Shared>> open;
    std::weak_ptr<Shared>& slot = open[store];
    std::shared_ptr<Shared> g = slot.lock();
    if (g == nullptr || g->committed) {
      g = std::make_shared<Shared>(store);
      slot = g;
    }
    return g;
  }

 private:
  std::shared_ptr<Shared> shared_;
};

// The WriteGroup for `store` joined by the running command (its reply waits
// for the group's commit), or null when `ctx` has no round.
inline WriteGroup* JoinStoreRound(CallContext& ctx, Store& store) {
  auto* c = ctx.JoinCommit<StoreRoundCommit>(&store, [&store] {
    return std::make_unique<StoreRoundCommit>(StoreRoundCommit::OpenGroup(&store));
  });
  return c ? &c->group() : nullptr;
}

}  // namespace crawlfront
