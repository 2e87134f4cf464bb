/* Secret redaction: the one place that blanks a secret out of text before the text is logged,
 * stored in a result or status, or written to a termination message. Defence in depth: nothing
 * should carry a secret in the first place. Knows nothing of where the secret comes from (the
 * caller passes it: PGPASSWORD, a Secret's value). */
#ifndef PGBO_UTIL_REDACT_H
#define PGBO_UTIL_REDACT_H

/* Replaces every occurrence of secret in s, in place, by "***" (by as many '*' as the secret has
 * bytes when it is shorter than 3, so s never grows). Nothing happens when s or secret is NULL or
 * secret is empty. */
void util_redact(char *s, const char *secret);

#endif
