// epoll(7) and eventfd(2), which Swift's Glibc module does not export. Used only by HTTPCore's
// EventLoop.
#include <sys/epoll.h>
#include <sys/eventfd.h>
