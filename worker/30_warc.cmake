# WARC/1.1 writer: gzip member per record, SHA-1 digests (own implementation).
crawlfront_module(NAME warc SOURCES src/warc.cc DEPS crawlfront_status ZLIB::ZLIB)
crawlfront_test(NAME warc_test SOURCES src/warc_test.cc DEPS crawlfront_warc ZLIB::ZLIB
                Threads::Threads)
