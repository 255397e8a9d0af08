import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A long list drawn a window at a time: rows of a fixed height, only those in view (plus a margin) in the
 * DOM, so filtering 10,000 objects re-renders a few dozen rows. The list is a focusable region for keyboard
 * scrolling; rows keep their own links.
 */
export function VirtualList<T>({
  items,
  rowHeight,
  height,
  render,
  label,
  header,
}: {
  items: readonly T[];
  rowHeight: number;
  height: number;
  render: (item: T, index: number) => ComponentChildren;
  label: string;
  header?: ComponentChildren;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useEffect(() => {
    // a new filter starts at the top
    if (ref.current) ref.current.scrollTop = 0;
    setTop(0);
  }, [items]);
  const margin = 10;
  const first = Math.max(0, Math.floor(top / rowHeight) - margin);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + margin);
  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) rows.push(render(items[i], i));
  return (
    <div class="vlist-wrap">
      {header}
      <div
        ref={ref}
        class="vlist"
        style={{ height: `${Math.min(height, Math.max(rowHeight, items.length * rowHeight))}px` }}
        onScroll={(event) => setTop((event.currentTarget as HTMLDivElement).scrollTop)}
        tabIndex={0}
        role="region"
        aria-label={label}
      >
        <div role="list" style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
          <div style={{ transform: `translateY(${first * rowHeight}px)` }}>{rows}</div>
        </div>
      </div>
    </div>
  );
}
