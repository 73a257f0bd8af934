// A planner registers a statement's parameters as it plans each part (the book's clock and
// strategies, a connection's totals), before it knows whether the selection keeps that part.
// PostgreSQL refuses a statement with a parameter its text never uses ("could not determine data
// type of parameter $n"), and the engine then fell back to the resolvers for the whole request.
// So the statement is sent with the parameters its text uses, renumbered in order.
// The engine's SQL holds no `$` but its placeholders: every value is a parameter, every literal
// the engine writes is a keyword, a number, a JSON key or a validated enum.

/**
 * `text` with its placeholders renumbered 1..k over the parameters it uses, those values, and
 * where each came from (`kept[j]`: the 0-based index in `values` of the new `$j+1`).
 */
export function usedParams(text: string, values: readonly unknown[]): { text: string; values: unknown[]; kept: number[] } {
  const used = new Set<number>();
  for (const m of text.matchAll(/\$(\d+)/g)) used.add(Number(m[1]));
  if (used.size === values.length) return { text, values: [...values], kept: values.map((_v, i) => i) };
  const renumbered = new Map<number, number>();
  const kept: unknown[] = [];
  const from: number[] = [];
  for (let n = 1; n <= values.length; n++) {
    if (!used.has(n)) continue;
    kept.push(values[n - 1]);
    from.push(n - 1);
    renumbered.set(n, kept.length);
  }
  return { text: text.replace(/\$(\d+)/g, (whole, n: string) => (renumbered.has(Number(n)) ? `$${renumbered.get(Number(n))}` : whole)), values: kept, kept: from };
}
