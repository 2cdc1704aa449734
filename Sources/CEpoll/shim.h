// epoll(7) and eventfd(2), which Swift's Glibc module does not export, and the one ioctl(2)
// HTTPCore needs (Swift does not import variadic C functions). Used only by HTTPCore: the
// EventLoop and the Socket.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

// The bytes in a TCP socket's send queue that its peer has not acknowledged yet (SIOCOUTQ,
// tcp(7)), or -1 with errno set. They fall as the peer's kernel takes them, which it does while
// the peer reads; a peer that stopped reading stops taking them once its window is full.
static inline int cepoll_unacknowledged_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCOUTQ, &count) == 0 ? count : -1;
}

// The bytes received on a TCP socket and not read yet (SIOCINQ, tcp(7)), or -1 with errno set.
static inline int cepoll_unread_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCINQ, &count) == 0 ? count : -1;
}
