/* Linux headers that Swift's Glibc module leaves out: epoll, eventfd, and TCP_NODELAY. Declarations only. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>
