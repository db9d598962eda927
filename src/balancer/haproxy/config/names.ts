/** haproxy's own rule for proxy and server names; `;` and newlines would start a second command */
export const HAPROXY_NAME = /^[A-Za-z0-9_.:-]+$/;
export const HAPROXY_NAME_RULE = "letters, digits, '-', '_', '.' and ':' only";
