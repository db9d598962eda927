const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text and attribute values on the page: whatever a host or a step's detail said, never markup. */
export const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** A percentage of the timeline's width, to two decimals (500 hosts × 14 bars stay short). */
export const pct = (ms: number, total: number): string =>
  `${total > 0 ? Math.round((ms / total) * 10_000) / 100 : 0}%`;
