// Tiny DOM helpers. Text always goes in through textContent, never innerHTML: player names and
// server messages are untrusted.

/**
 * Build an element. `attrs` keys: `class`, `text`, `on` (event map), `dataset`, `style`, any
 * attribute (false/null/undefined skip it, true sets it empty). Children: nodes, strings, arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "on") for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") {
      // Through the CSSOM, never a style attribute (the Content-Security-Policy allows only
      // 'self' styles); custom properties ("--step") need setProperty.
      for (const [name, css] of Object.entries(value)) {
        if (name.startsWith("--")) el.style.setProperty(name, css);
        else el.style[name] = css;
      }
    }
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const prefersReducedMotion = () =>
  window.matchMedia("(prefers-reduced-motion: reduce)").matches;
