import { h } from './dom.js';

// Tables that stay readable on a phone: scrollable regions, and rows that stack into cards.

/** A wide table in its own horizontally scrollable, keyboard-focusable region (narrow screens). */
export function scrollTable(label: string, table: HTMLElement): HTMLElement {
  return h('div', { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: '0' }, table);
}

/** Names each cell after its column (data-label), for the stacked layout of narrow screens. */
export function labelCells(columns: readonly string[], rows: HTMLTableRowElement[]): HTMLTableRowElement[] {
  for (const row of rows) {
    [...row.cells].forEach((cell, i) => {
      if (!cell.dataset.label && columns[i]) cell.dataset.label = columns[i];
    });
  }
  return rows;
}

/**
 * A table with a caption, header cells and one row per item; cells are nodes or text. On a narrow
 * screen each row becomes a small card of "label: value" lines (style.css, table.data.stack), so
 * nothing is clipped or squeezed one character per line.
 */
export function dataTable({
  caption,
  columns,
  rows,
  captionHidden = true,
}: {
  caption: string;
  columns: readonly string[];
  rows: HTMLTableRowElement[];
  captionHidden?: boolean;
}): HTMLTableElement {
  return h(
    'table',
    { class: 'data stack' },
    h('caption', { class: captionHidden ? 'visually-hidden' : null }, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        columns.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h('tbody', null, labelCells(columns, rows)),
  );
}
