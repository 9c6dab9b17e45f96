// Independent WARC reader for the e2e test: reads .warc.gz files with the
// warcio npm package (webrecorder) and prints one tab-separated line per
// record: type, WARC-Target-URI, HTTP status (or -), payload bytes, and
// whether WARC-Payload-Digest matches the payload (1/0/-).
//
// Usage: node read_warc.mjs PREFIX FILE...
// PREFIX is where `npm install --prefix PREFIX warcio` put node_modules.
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';

const [prefix, ...files] = process.argv.slice(2);
const require = createRequire(path.resolve(prefix, 'package.json'));
const { WARCParser } = require('warcio');

// RFC 4648 base32 with padding, the encoding of WARC sha1 digests.
function base32(bytes) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0, value = 0, out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8) out += '=';
  return out;
}

for (const file of files) {
  const parser = new WARCParser(createReadStream(file));
  for await (const record of parser) {
    const type = record.warcType;
    const uri = record.warcTargetURI || '-';
    const status = type === 'response' && record.httpHeaders ? String(record.httpHeaders.statusCode) : '-';
    const payload = await record.readFully(true);
    const want = record.warcHeader('WARC-Payload-Digest');
    let ok = '-';
    if (want && record.httpHeaders) {
      ok = want === 'sha1:' + base32(createHash('sha1').update(payload).digest()) ? '1' : '0';
    }
    process.stdout.write([type, uri, status, payload.length, ok].join('\t') + '\n');
  }
}
