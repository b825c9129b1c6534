import { expect, it } from 'vitest';
import { escapeHtml } from './html.js';

it('escapes the five characters that can end text or an attribute, and nothing else', () => {
  expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
    '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;',
  );
  expect(escapeHtml('Привет, 世界 $& $1')).toBe('Привет, 世界 $&amp; $1');
});
