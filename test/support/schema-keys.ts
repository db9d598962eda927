import { configJsonSchema } from '../../src/config/json-schema.js';

/** the parts of deploy.yml's JSON Schema a key lookup walks */
export interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  /** a variant picked by `if` (the balancer by its kind) */
  then?: Schema;
  else?: Schema;
  $ref?: string;
}

export const schema = configJsonSchema() as Schema & { $defs?: Record<string, Schema> };

/** the object schemas a value at this schema may be: through refs, unions and lists */
export function objectsOf(s: Schema): Schema[] {
  if (s.$ref) {
    const target = schema.$defs?.[s.$ref.replace(/^#\/\$defs\//, '')];
    return target ? objectsOf(target) : [];
  }
  const nested = [
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.allOf ?? []),
    ...(s.then ? [s.then] : []),
    ...(s.else ? [s.else] : []),
  ].flatMap(objectsOf);
  return [...(s.properties ? [s] : []), ...(s.items ? objectsOf(s.items) : []), ...nested];
}

/** the schemas of `key` in any of `here`'s object variants */
export function childrenOf(here: readonly Schema[], key: string): Schema[] {
  return here.flatMap(objectsOf).flatMap((o) => {
    const next = o.properties?.[key];
    return next ? [next] : [];
  });
}

/** every key deploy.yml takes at `section` (`services[].check`), over every variant */
export function keysAt(section: string): Set<string> {
  let here: Schema[] = [schema];
  for (const part of section ? section.replace(/\[\]/g, '').split('.') : [])
    here = childrenOf(here, part);
  return new Set(here.flatMap(objectsOf).flatMap((o) => Object.keys(o.properties ?? {})));
}
