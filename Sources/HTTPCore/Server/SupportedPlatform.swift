// The engine serves connections with epoll(7) and Glibc's sockets: it is built for Linux only
// (Debian 12 and the Swift 6.3 toolchain are what the project tests; the container image is
// Debian 12). On any other platform the build stops here with this message instead of failing
// later on a missing `epoll_wait`.
#if !os(Linux)
#error(
    "permission-service builds on Linux only: its HTTP engine (HTTPCore) uses epoll(7). Build it on Linux or in the docker/Dockerfile image."
)
#endif
