# Sitemaps (sitemaps.org): <loc> URLs of a <urlset> or <sitemapindex>, plain or
# gzip-compressed, on expat and zlib.
crawlfront_module(NAME sitemap
  SOURCES src/sitemap.cc
  DEPS crawlfront_url PkgConfig::EXPAT ZLIB::ZLIB)
crawlfront_test(NAME sitemap_test
  SOURCES src/sitemap_test.cc
  DEPS crawlfront_sitemap crawlfront_simweb_encoding)
crawlfront_fuzzer(NAME sitemap_fuzzer
  SOURCES src/sitemap_fuzzer.cc
  DEPS crawlfront_sitemap)
if(CRAWLFRONT_FUZZ)
  # Coverage feedback must reach the library, not only the fuzzer's own file.
  target_compile_options(crawlfront_sitemap PRIVATE -fsanitize=fuzzer-no-link)
endif()
