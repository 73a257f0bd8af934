// The demo collections' logos and banners, drawn offline as SVG (no network on a newcomer's first
// start): data: URIs the media worker fetches, rasterises and serves from /media/ like any source
// (docs/media.md), so the first page shows hosted logos and banners.
import { Buffer } from 'node:buffer';

const HUES = [28, 198, 14, 268, 160, 330, 48];

const dataUri = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

/** A logo: a disc with rings in the collection's hue (index i of the demo's collections). */
export function demoLogo(i: number): string {
  const h = HUES[i % HUES.length]!;
  const rings = Array.from({ length: 4 }, (_, k) => `<circle cx="128" cy="128" r="${100 - k * 22}" fill="hsl(${(h + k * 18) % 360} 70% ${30 + k * 12}%)"/>`).join('');
  return dataUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 256" width="256" height="256"><rect width="256" height="256" fill="hsl(${h} 35% 14%)"/>${rings}</svg>`);
}

/** A banner: a wide gradient with a row of the logo's discs. */
export function demoBanner(i: number): string {
  const h = HUES[i % HUES.length]!;
  const discs = Array.from({ length: 7 }, (_, k) => `<circle cx="${80 + k * 145}" cy="${128 + (k % 2 ? 30 : -30)}" r="${40 + (k % 3) * 12}" fill="hsl(${(h + k * 12) % 360} 65% 55%)" opacity="0.8"/>`).join('');
  return dataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1024 256" width="1024" height="256"><defs><linearGradient id="g" x1="0" x2="1">` +
      `<stop offset="0" stop-color="hsl(${h} 60% 18%)"/><stop offset="1" stop-color="hsl(${(h + 60) % 360} 60% 30%)"/></linearGradient></defs>` +
      `<rect width="1024" height="256" fill="url(#g)"/>${discs}</svg>`,
  );
}
