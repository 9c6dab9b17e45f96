# host:port parsing shared by servers, worker and crawlctl.
crawlfront_module(NAME net SOURCES src/net.cc DEPS crawlfront_status Boost::headers Threads::Threads)
crawlfront_test(NAME net_test SOURCES src/net_test.cc DEPS crawlfront_net)
