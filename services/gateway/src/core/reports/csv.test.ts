import { csvField, csvLine, csvLines } from './csv';

describe('CSV (RFC 4180)', () => {
  it('quotes only fields holding a comma, quote or line break, doubling quotes, and ends lines with CRLF', () => {
    expect(csvLine(['plain', 12, -3, null, undefined, 'a,b', 'say "hi"', 'two\nlines'])).toBe(
      'plain,12,-3,,,"a,b","say ""hi""","two\nlines"\r\n',
    );
    expect(csvField('é ünïcode')).toBe('é ünïcode');
  });

  it('writes rows by column name in the columns’ order', () => {
    expect(csvLines(['b', 'a'], [{ a: 1, b: 'x' }, { a: 2 }])).toBe('x,1\r\n,2\r\n');
  });
});
