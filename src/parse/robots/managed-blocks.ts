/**
 * Blocks of a robots.txt written by a known generator rather than by hand, recognised by the
 * comment lines the generator writes around them (docs/reference/ai-crawlers.md#who-wrote-the-block):
 *
 * - `cloudflare`: Cloudflare's managed robots.txt (one setting in its dashboard) prepends its
 *   block between `# BEGIN Cloudflare Managed content` and `# END Cloudflare Managed Content`
 *   (Cloudflare docs, "Managed robots.txt", bots/additional-configurations/managed-robots-txt).
 * - `yoast`: the Yoast SEO WordPress plugin writes its rules between `# START YOAST BLOCK` and
 *   `# END YOAST BLOCK` (Yoast SEO's robots.txt generator, version 19 and later).
 *
 * Markers are compared case-insensitively with runs of whitespace collapsed (the two Cloudflare
 * markers differ in case). A block whose end marker never comes runs to the end of the file.
 */
export interface ManagedBlock {
  generator: string;
  beginLine: number;
  /** Line of the end marker; null when the file ends first. */
  endLine: number | null;
}

const GENERATORS: readonly { generator: string; begin: string; end: string }[] = [
  { generator: 'cloudflare', begin: '# begin cloudflare managed content', end: '# end cloudflare managed content' },
  { generator: 'yoast', begin: '# start yoast block', end: '# end yoast block' },
];

/** Fed the comment lines of a robots.txt, in order. */
export class ManagedBlocks {
  readonly blocks: ManagedBlock[] = [];
  private open: { block: ManagedBlock; end: string } | null = null;

  comment(lineNo: number, text: string): void {
    const t = text.trim().replace(/\s+/g, ' ').toLowerCase();
    if (this.open !== null) {
      if (t === this.open.end) {
        this.open.block.endLine = lineNo;
        this.open = null;
      }
      return;
    }
    const g = GENERATORS.find((x) => t === x.begin);
    if (g === undefined) return;
    const block: ManagedBlock = { generator: g.generator, beginLine: lineNo, endLine: null };
    this.blocks.push(block);
    this.open = { block, end: g.end };
  }
}
