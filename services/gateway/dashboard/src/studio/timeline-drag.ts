import type { Clip } from './names.js';

/** Type of the drag data: a clip's id (other drags, files among them, are not reorders). */
const CLIP_TYPE = 'application/x-studio-clip';

/** The clip being dragged and the track list it belongs to; a clip moves within its own track only. */
let dragged: { list: HTMLOListElement; clip: Clip; item: HTMLLIElement } | null = null;

/** Whether a point is before a clip in reading order: a row above it, or left of its middle on its row. */
function isBefore(x: number, y: number, item: Element): boolean {
  const r = item.getBoundingClientRect();
  return y < r.top || (y <= r.bottom && x < r.left + r.width / 2);
}

function clearIndicator(list: HTMLOListElement): void {
  for (const el of list.querySelectorAll('.drop-before, .drop-after')) el.classList.remove('drop-before', 'drop-after');
}

/**
 * Native drag and drop on one track's list: each clip item is draggable; over the list, a line
 * before (or after the last) clip shows where it would go; a drop moves the item there at once and
 * calls `reorder` with the clip's new index, whose answer redraws the timeline (or restores it).
 */
export function dragToReorder(
  list: HTMLOListElement,
  items: ReadonlyMap<HTMLLIElement, Clip>,
  reorder: (clip: Clip, idx: number) => void,
): void {
  // Where the dragged clip would land: its index among the other clips, and the item it goes before.
  type Target = { idx: number; from: number; before: HTMLLIElement | null; others: HTMLLIElement[] };
  const target = (event: DragEvent, item: HTMLLIElement): Target => {
    const from = [...items.keys()].indexOf(item);
    const others = [...items.keys()].filter((other) => other !== item);
    const idx = others.findIndex((other) => isBefore(event.clientX, event.clientY, other));
    return { idx: idx === -1 ? others.length : idx, from, before: others[idx] ?? null, others };
  };

  for (const [item, clip] of items) {
    item.draggable = true;
    // Pictures in a clip would otherwise be dragged on their own.
    for (const media of item.querySelectorAll('img, video')) (media as HTMLElement).draggable = false;
    item.addEventListener('dragstart', (event) => {
      if (!event.dataTransfer) return;
      dragged = { list, clip, item };
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData(CLIP_TYPE, clip.id);
      item.classList.add('clip-dragging');
    });
    item.addEventListener('dragend', () => {
      item.classList.remove('clip-dragging');
      clearIndicator(list);
      dragged = null;
    });
  }

  list.addEventListener('dragover', (event) => {
    if (dragged?.list !== list || !event.dataTransfer?.types.includes(CLIP_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    const { idx, from, before, others } = target(event, dragged.item);
    clearIndicator(list);
    if (idx === from) return; // where it is already: no line
    if (before) before.classList.add('drop-before');
    else others[others.length - 1]?.classList.add('drop-after');
  });
  list.addEventListener('dragleave', (event) => {
    if (!(event.relatedTarget instanceof Node && list.contains(event.relatedTarget))) clearIndicator(list);
  });
  list.addEventListener('drop', (event) => {
    if (dragged?.list !== list) return;
    event.preventDefault();
    const { clip, item } = dragged;
    const { idx, from, before, others } = target(event, item);
    clearIndicator(list);
    if (idx === from) return;
    // Shown where it was dropped right away; the server's answer then redraws the track.
    if (before) before.before(item);
    else others[others.length - 1]?.after(item);
    reorder(clip, idx);
  });
}
