// Types of scripts/build.mjs (plain JavaScript: postinstall runs it before anything is compiled).
export const ENTRIES: Record<string, string>;
export const EXTERNAL: string[];
export function buildDist(opts?: { quiet?: boolean }): Promise<number>;
export function buildDemoTemplate(): void;
