# crawlctl: the operator CLI (frontier/ctl/).
add_executable(crawlctl ctl/ctl_main.cc ctl/ctl_common.cc ctl/ctl_seed.cc ctl/ctl_route.cc
                        ctl/ctl_status.cc ctl/ctl_queue.cc ctl/ctl_dump.cc ctl/ctl_crawls.cc ctl/ctl_workers.cc
                        ctl/ctl_run.cc ctl/ctl_run_wait.cc ctl/ctl_url.cc)
target_link_libraries(crawlctl PRIVATE crawlfront_resp_client crawlfront_net crawlfront_url
                      crawlfront_ownership crawlfront_config
                      Boost::program_options)
