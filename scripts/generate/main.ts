import fs from 'node:fs';
import path from 'node:path';
import * as contracts from '../../libs/contracts/src';
import { openApiDocument } from '../../services/gateway/src/api/openapi/document';
import { OPERATIONS } from '../../services/gateway/src/operations/table';
import { contractTypesFile } from './contract-types';
import { sdkOperationMethodsFile, sdkOperationsFile } from './sdk-operations';
import { sdkContractValuesFile, sdkTypesFile } from './sdk-types';

/**
 * `npm run generate` writes every derived file; `npm run generate -- --check` (run by `npm test`)
 * fails, naming them, when one is not what the schemas give.
 */
const ROOT = path.resolve(__dirname, '../..');

interface Generated {
  file: string;
  content: () => Promise<string> | string;
}

const GENERATED: Generated[] = [
  {
    file: 'libs/contracts/src/generated/types.ts',
    content: () => contractTypesFile(contracts),
  },
  { file: 'sdk/src/generated/openapi.ts', content: () => sdkTypesFile(openApiDocument) },
  { file: 'sdk/src/generated/contract-values.ts', content: () => sdkContractValuesFile(contracts) },
  { file: 'sdk/src/generated/operations.ts', content: () => sdkOperationsFile(OPERATIONS) },
  { file: 'sdk/src/generated/operation-methods.ts', content: () => sdkOperationMethodsFile(OPERATIONS) },
];

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const g of GENERATED) {
    const target = path.join(ROOT, g.file);
    const want = await g.content();
    const have = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    if (have === want) continue;
    if (check) stale.push(g.file);
    else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, want);
      console.log(`wrote ${g.file}`);
    }
  }
  if (stale.length) {
    console.error(
      `Generated files are stale (run \`npm run generate\` and commit them):\n${stale.map((f) => `  ${f}`).join('\n')}`,
    );
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
