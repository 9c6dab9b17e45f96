# Table-driven TOML configuration with command-line overrides.
crawlfront_module(NAME config SOURCES src/config.cc
                  DEPS crawlfront_status tomlplusplus::tomlplusplus)
crawlfront_test(NAME config_test SOURCES src/config_test.cc DEPS crawlfront_config)
crawlfront_fuzzer(NAME config_fuzzer SOURCES src/config_fuzzer.cc DEPS crawlfront_config)
