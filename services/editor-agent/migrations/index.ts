import type { Migration } from '@mf/db';
import { editorRecords } from './0001_editor_records';
import { backgroundExports } from './0002_exports';

/** In order. Append only. */
export const migrations: Migration[] = [editorRecords, backgroundExports];
