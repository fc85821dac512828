/**
 * The console's one way of writing HTML (packages/cli/src/console/html.ts): whatever a partner or an
 * endpoint wrote is shown as the characters it is, never applied as markup, and no control byte or
 * direction override reaches the page unescaped.
 */
import { describe, expect, it } from 'vitest';
import { escapeText, Html, html, query } from '../../packages/cli/src/console/html.ts';

describe('console HTML', () => {
  it('escapes markup and quotes in every value put into a template', () => {
    const reason = `<img src=x onerror=alert(1)> "quoted" 'single' & more`;
    expect(html`<td title="${reason}">${reason}</td>`.toString()).toBe(
      '<td title="&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &#39;single&#39; &amp; more">&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &#39;single&#39; &amp; more</td>',
    );
  });

  it('shows control bytes and bidirectional overrides as visible escapes, and keeps tabs and line breaks', () => {
    expect(escapeText('a\u001b[31mb\u0007c\u202Ed\u2066e\u009bf\tg\nh')).toBe(
      'a\\u001b[31mb\\u0007c\\u202ed\\u2066e\\u009bf\tg\nh',
    );
  });

  it('passes markup it built itself, joins arrays and leaves out absent values', () => {
    const cells = ['<a>', 'b'].map((text) => html`<td>${text}</td>`);
    expect(html`<tr>${cells}${undefined}${null}${false}${0}</tr>`.toString()).toBe(
      '<tr><td>&lt;a&gt;</td><td>b</td>0</tr>',
    );
    expect(html`${new Html('<b>x</b>')}`.toString()).toBe('<b>x</b>');
  });

  it('writes query strings with every value encoded and empty ones left out', () => {
    expect(
      query({ state: ['REVIEW', 'OVERDUE'], after: 'confirmations/a&b=c', gtin: '', limit: undefined }),
    ).toBe('?state=REVIEW&state=OVERDUE&after=confirmations%2Fa%26b%3Dc');
    expect(query({})).toBe('');
  });
});
