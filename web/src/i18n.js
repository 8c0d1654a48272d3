// Every visible string lives in i18n/en.json and i18n/zh.json; this module picks the language and
// fills elements marked data-i18n.
import en from './i18n/en.json';
import zh from './i18n/zh.json';

const tables = { en, zh };
let current = 'en';

/** The language to start with: the saved choice, else the browser's (Chinese or English). */
export function initialLanguage() {
  let saved = null;
  try { saved = localStorage.getItem('gpusizer.lang'); } catch { /* storage may be blocked */ }
  if (saved && tables[saved]) return saved;
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'];
  return langs.some((l) => String(l).toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export function setLanguage(lang) {
  current = tables[lang] ? lang : 'en';
  try { localStorage.setItem('gpusizer.lang', current); } catch { /* ignore */ }
  document.documentElement.lang = current === 'zh' ? 'zh-CN' : 'en';
  for (const el of document.querySelectorAll('[data-i18n]')) {
    const text = t(el.dataset.i18n);
    if (el.children.length === 0) el.textContent = text;
    else el.setAttribute('aria-label', text);
  }
  document.title = t('title');
}

export function language() { return current; }

/** The string for `key`, with {name} placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const s = tables[current][key] ?? tables.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, name) => (vars[name] ?? `{${name}}`));
}
