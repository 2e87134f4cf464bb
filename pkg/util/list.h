/* Intrusive doubly-linked lists: a node is any struct with `prev` and `next` pointers to its own
 * type, the list is a pointer to its first node (NULL: empty). Macros, as C has no generics; the
 * arguments are evaluated more than once, so pass plain lvalues. */
#ifndef PGBO_UTIL_LIST_H
#define PGBO_UTIL_LIST_H

/* Puts n first in the list head. */
#define UTIL_LIST_PUSH(head, n)                                                                    \
    do {                                                                                           \
        (n)->prev = NULL;                                                                          \
        (n)->next = (head);                                                                        \
        if (head)                                                                                  \
            (head)->prev = (n);                                                                    \
        (head) = (n);                                                                              \
    } while (0)

/* Takes n out of the list head (n's own pointers are left as they were). */
#define UTIL_LIST_UNLINK(head, n)                                                                  \
    do {                                                                                           \
        if ((n)->prev)                                                                             \
            (n)->prev->next = (n)->next;                                                           \
        else                                                                                       \
            (head) = (n)->next;                                                                    \
        if ((n)->next)                                                                             \
            (n)->next->prev = (n)->prev;                                                           \
    } while (0)

#endif
