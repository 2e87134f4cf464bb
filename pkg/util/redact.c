/* Secret redaction. */
#include "pkg/util/redact.h"

#include <string.h>

void util_redact(char *s, const char *secret)
{
    size_t sl = secret ? strlen(secret) : 0;
    if (!s || !sl)
        return;
    size_t stars = sl < 3 ? sl : 3;
    char *p = s;
    while ((p = strstr(p, secret)) != NULL) {
        memset(p, '*', stars);
        memmove(p + stars, p + sl, strlen(p + sl) + 1);
        p += stars;
    }
}
