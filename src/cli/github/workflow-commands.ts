/**
 * GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped
 * as the runner unescapes them: a `%`, CR or LF in the data, and also `:` and
 * `,` in a property, would otherwise end the command or a property early.
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface AnnotationProps {
  readonly title?: string;
  readonly file?: string;
  readonly line?: number;
}

export function annotation(
  kind: 'error' | 'warning' | 'notice',
  message: string,
  props: AnnotationProps = {},
): string {
  const list = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${kind}${list ? ` ${list}` : ''}::${escapeData(message)}`;
}

export const group = (title: string): string => `::group::${escapeData(title)}`;
export const endGroup = '::endgroup::';
