/* The HTML report. */
#include "pkg/plugin/report.h"

int plugin_report_html(struct buf *out, const cJSON *br)
{
    (void)br;
    return buf_puts(out, "<!DOCTYPE html><html></html>\n");
}
