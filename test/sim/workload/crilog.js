'use strict';
// Container logs as containerd writes them and the kubelet reads them back.
//
// Writing (containerd's CRI logger, internal/cri/io/logger.go redirectLogs): the container's output
// becomes records `<RFC3339Nano time> <stream> <tag> <content>\n`, one per line, stamped when the
// runtime reads the line; a line over CRI_MAX_LOG_LINE bytes (max_container_log_line_size, 16 KiB)
// is split into partial records (tag P) ended by a full one (F), and an unterminated line is
// written only when it outgrows that size or at the end of the output (then as P). The sim's
// container writes stdout and stderr into one raw file (so their order is kept), which CriLog
// turns into records as it grows (inotify, and before every read); the stream is then "stdout".
//
// Reading (the kubelet's ReadLogs, pkg/kubelet/kuberuntime/logs/logs.go): tailLines picks the
// starting record (tail.FindTailLineStartIndex counts records, not lines); from there each record
// older than `since` is skipped, the others are prefixed with their time and a space when
// timestamps (at the start of a line only: not the continuation of a partial record), and the
// output stops at limitBytes (the prefixes count). Without follow the read also stops after the
// tailLines records it started at; with follow it goes on until the container stops.
const fs = require('fs');
const { nowNs, rfc3339Nano, parseRFC3339 } = require('../lib/gotime');

const CRI_MAX_LOG_LINE = 16384;
const NL = Buffer.from('\n');

// containerd's writer for one container: the raw output file grows, the CRI log gets its records.
class CriLog {
  constructor(raw, file) {
    this.raw = raw;
    this.file = file;
    this.pos = 0;
    this.carry = Buffer.alloc(0);
    this.watcher = null;
    this.closed = false;
    fs.writeFileSync(raw, '');
    fs.writeFileSync(file, '');
  }

  watch() {
    try {
      this.watcher = fs.watch(this.raw, () => this.ingest(false));
      this.watcher.on('error', () => {});
      this.watcher.unref();
    } catch (_) {
      this.watcher = null; // read at each log read and at the end instead
    }
  }

  // Turn the raw output written since the last call into records; eof: the output has ended.
  ingest(eof) {
    if (this.closed) return;
    let chunk = Buffer.alloc(0);
    try {
      const fd = fs.openSync(this.raw, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        chunk = Buffer.alloc(Math.max(0, size - this.pos));
        const got = fs.readSync(fd, chunk, 0, chunk.length, this.pos);
        chunk = chunk.subarray(0, got);
      } finally {
        fs.closeSync(fd);
      }
    } catch (_) {
      // the pod's directory is gone
    }
    this.pos += chunk.length;
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const ts = rfc3339Nano(nowNs());
    const recs = [];
    const record = (tag, content) => recs.push(Buffer.from(`${ts} stdout ${tag} `), content, NL);
    let s = 0;
    for (let e = data.indexOf(10, s); e >= 0; e = data.indexOf(10, s)) {
      let line = data.subarray(s, e);
      for (; line.length > CRI_MAX_LOG_LINE; line = line.subarray(CRI_MAX_LOG_LINE)) record('P', line.subarray(0, CRI_MAX_LOG_LINE));
      record('F', line);
      s = e + 1;
    }
    let rest = data.subarray(s);
    for (; rest.length > CRI_MAX_LOG_LINE; rest = rest.subarray(CRI_MAX_LOG_LINE)) record('P', rest.subarray(0, CRI_MAX_LOG_LINE));
    if (eof && rest.length) {
      record('P', rest);
      rest = rest.subarray(rest.length);
    }
    this.carry = Buffer.from(rest);
    if (recs.length) {
      try {
        fs.appendFileSync(this.file, Buffer.concat(recs));
      } catch (_) {
        // the pod's directory is gone
      }
    }
  }

  // The container's output has ended: the last records, and no more watching.
  close() {
    if (this.closed) return;
    this.ingest(true);
    this.closed = true;
    if (this.watcher) this.watcher.close();
    this.watcher = null;
  }
}

// tail.FindTailLineStartIndex: the offset of the n-th record from the end (0: the end, < 0: all).
function tailStart(buf, n) {
  if (n < 0) return 0;
  let end = buf.length && buf[buf.length - 1] === 10 ? buf.length - 1 : buf.length;
  let start = buf.length;
  for (let k = 0; k < n; k++) {
    if (end <= 0) return 0;
    const j = buf.lastIndexOf(10, end - 1);
    if (j < 0) return 0;
    start = j + 1;
    end = j;
  }
  return start;
}

// parseCRILog: {ns, log} of one record (the newline of a partial one dropped), or null.
function parseRecord(line) {
  const a = line.indexOf(32);
  const b = a < 0 ? -1 : line.indexOf(32, a + 1);
  const c = b < 0 ? -1 : line.indexOf(32, b + 1);
  if (c < 0) return null;
  const t = parseRFC3339(line.subarray(0, a).toString('latin1'));
  if (t.error) return null;
  const partial = line.subarray(b + 1, c).toString('latin1').split(':')[0] === 'P';
  let log = line.subarray(c + 1);
  if (partial && log.length && log[log.length - 1] === 10) log = log.subarray(0, log.length - 1);
  return { ns: t.ns, log };
}

// The kubelet's read of one container's log, per PodLogOptions (numbers; sinceTime in ns).
// refresh: called before each read (the writer's ingest, while the container runs).
class LogReader {
  constructor(file, opts, refresh) {
    this.file = file;
    this.refresh = refresh || (() => {});
    const has = (v) => v !== undefined && v !== null && v !== '';
    this.tail = has(opts.tailLines) ? Number(opts.tailLines) : -1;
    this.follow = !!opts.follow;
    this.timestamps = !!opts.timestamps;
    this.remain = has(opts.limitBytes) ? Number(opts.limitBytes) : Infinity;
    // newLogOptions: since = now - sinceSeconds, or sinceTime when that is later
    this.since = has(opts.sinceSeconds) ? nowNs() - BigInt(opts.sinceSeconds) * 1000000000n : 0n;
    if (has(opts.sinceTime) && BigInt(opts.sinceTime) > this.since) this.since = BigInt(opts.sinceTime);
    this.left = this.tail;
    this.limited = this.tail >= 0 && !this.follow;
    this.pos = null;
    this.isNewLine = true;
    this.done = false;
  }

  // The output since the previous read (a Buffer).
  read() {
    if (this.done) return Buffer.alloc(0);
    this.refresh();
    let buf;
    try {
      buf = fs.readFileSync(this.file);
    } catch (_) {
      buf = Buffer.alloc(0);
    }
    if (this.pos === null) this.pos = tailStart(buf, this.tail);
    const out = [];
    while (!this.done && !(this.limited && this.left === 0)) {
      const e = buf.indexOf(10, this.pos);
      if (e < 0) break;
      const rec = parseRecord(buf.subarray(this.pos, e + 1));
      this.pos = e + 1;
      if (!rec) continue;
      this.write(rec, out);
      if (this.limited) this.left--;
      this.isNewLine = rec.log.length === 0 || rec.log[rec.log.length - 1] === 10;
    }
    if (!this.follow) this.done = true;
    return Buffer.concat(out);
  }

  // logWriter.write: since, the timestamp prefix, limitBytes.
  write(rec, out) {
    if (rec.ns < this.since) return;
    let line = rec.log;
    if (this.timestamps && this.isNewLine) line = Buffer.concat([Buffer.from(`${rfc3339Nano(rec.ns)} `), line]);
    if (line.length > this.remain) line = line.subarray(0, this.remain);
    out.push(line);
    this.remain -= line.length;
    if (this.remain <= 0) this.done = true;
  }
}

module.exports = { CriLog, LogReader, CRI_MAX_LOG_LINE, tailStart };
