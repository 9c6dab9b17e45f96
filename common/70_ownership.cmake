# Host partitions and their owning cluster members (rendezvous hashing),
# shared by the seen-set and crawlctl's seed routing.
crawlfront_module(NAME ownership SOURCES src/ownership.cc
                  DEPS crawlfront_url PkgConfig::XXHASH)
crawlfront_test(NAME ownership_test SOURCES src/ownership_test.cc DEPS crawlfront_ownership)
