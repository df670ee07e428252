import type { Migration } from '@mf/db';
import { editorRecords } from './0001_editor_records';

/** In order. Append only. */
export const migrations: Migration[] = [editorRecords];
