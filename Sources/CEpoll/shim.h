// epoll(7), which Swift's Glibc module does not export. Used only by HTTPCore's EventLoop.
#include <sys/epoll.h>
