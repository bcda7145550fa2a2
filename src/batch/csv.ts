/**
 * One delimited record (RFC 4180, with the format's separator), fed a physical line at a time so that a record whose quote never closes
 * can be given up at its first line and reading can carry on at the next one, which a stream parser
 * cannot do. Quotes inside an unquoted field are text (`5" screen`), and so is whatever follows a
 * closing quote up to the next separator (`"x"y` is `x"y`).
 */
const QUOTE = 34;
const CR = 13;

export class CsvRecord {
  fields: string[] = [];
  readonly #sep: string;
  readonly #sepCode: number;
  constructor(separator = ',') {
    this.#sep = separator;
    this.#sepCode = separator.charCodeAt(0);
  }
  /** Characters fed so far. */
  size = 0;
  #field = '';
  #inQuotes = false;

  /** Feeds the record's next line; true when the record is complete. */
  feed(line: string): boolean {
    this.size += line.length + 1;
    let i = 0;
    if (this.#inQuotes) {
      this.#field += '\n';
      i = this.#quoted(line, 0);
      if (i < 0) return false;
      if (i >= line.length) return true;
    }
    for (;;) {
      if (line.charCodeAt(i) === QUOTE) {
        this.#inQuotes = true;
        this.#field = '';
        i = this.#quoted(line, i + 1);
        if (i < 0) return false;
        if (i >= line.length) return true;
        continue;
      }
      const comma = line.indexOf(this.#sep, i);
      if (comma < 0) {
        const end = line.charCodeAt(line.length - 1) === CR ? line.length - 1 : line.length;
        this.fields.push(line.slice(i, end));
        return true;
      }
      this.fields.push(line.slice(i, comma));
      i = comma + 1;
      if (i === line.length) {
        this.fields.push('');
        return true;
      }
    }
  }

  /**
   * Reads a quoted field from `i` (after its opening quote). Returns where the next field starts,
   * line.length when the record ends with this field, or -1 when the line ends inside the quotes.
   */
  #quoted(line: string, from: number): number {
    let i = from;
    for (;;) {
      const quote = line.indexOf('"', i);
      if (quote < 0) {
        this.#field += line.slice(i);
        return -1;
      }
      this.#field += line.slice(i, quote);
      const after = line.charCodeAt(quote + 1);
      if (after === QUOTE) {
        this.#field += '"';
        i = quote + 2;
      } else if (after === this.#sepCode) {
        this.#end();
        if (quote + 2 < line.length) return quote + 2;
        this.fields.push(''); // a record that ends with a comma has an empty last field
        return line.length;
      } else if (quote + 1 === line.length || (after === CR && quote + 2 === line.length)) {
        this.#end();
        return line.length;
      } else {
        // Text after a closing quote (`"x"y`): kept as text up to the next comma, so that a
        // stray quote never carries the record on into the lines after it.
        const comma = line.indexOf(this.#sep, quote + 1);
        const end = comma >= 0 ? comma : line.charCodeAt(line.length - 1) === CR ? line.length - 1 : line.length;
        this.#field += line.slice(quote, end);
        this.#end();
        if (comma < 0) return line.length;
        if (comma + 1 < line.length) return comma + 1;
        this.fields.push('');
        return line.length;
      }
    }
  }

  #end(): void {
    this.fields.push(this.#field);
    this.#field = '';
    this.#inQuotes = false;
  }
}
