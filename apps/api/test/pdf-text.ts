import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** The text of a PDF (receipts), page by page: what a reader would copy out of it. */
export async function pdfText(body: Buffer): Promise<string> {
  const task = getDocument({ data: new Uint8Array(body), useSystemFonts: false });
  const doc = await task.promise;
  const parts: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    parts.push(content.items.map((it) => ('str' in it ? it.str : '')).join(' '));
  }
  await task.destroy();
  return parts.join('\n');
}
