// .ci/run, after a failed test run: prints what failed again, last (see failure-summary.ts).
import fs from 'node:fs';
import { failureSummary } from './failure-summary';

const file = process.argv[2];
if (!file) throw new Error('usage: print-failures <test log>');
console.log(failureSummary(fs.readFileSync(file, 'utf8')).join('\n'));
