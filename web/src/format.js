// Numbers for people: bytes in GiB with GB beside them, rates and money in the page's language.
import { language } from './i18n.js';

const GiB = 2 ** 30;
const GB = 1e9;

function locale() { return language() === 'zh' ? 'zh-CN' : 'en-US'; }

export function num(value, digits = 1) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return '–';
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(value);
}

export function fixed(value, digits) {
  if (!Number.isFinite(Number(value))) return '–';
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value);
}

export const gib = (bytes) => `${fixed(bytes / GiB, 2)} GiB`;
export const gb = (bytes) => `${fixed(bytes / GB, 2)} GB`;
export const toGiB = (bytes) => bytes / GiB;

/** A rate with a sensible number of digits: 12 345, 123.4, 1.23. */
export function rate(value) {
  if (!Number.isFinite(Number(value))) return '–';
  const a = Math.abs(value);
  return num(value, a >= 1000 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

export function usd(value) {
  if (!Number.isFinite(Number(value))) return '–';
  return new Intl.NumberFormat(locale(), { style: 'currency', currency: 'USD', maximumFractionDigits: value < 10 ? 3 : 2 }).format(value);
}

/** Money in any currency: whole units from 1000 up (a capex), cents below, three digits under 10. */
export function money(value, currency) {
  if (!Number.isFinite(Number(value))) return '–';
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) < 10 ? 3 : 2;
  return new Intl.NumberFormat(locale(), { style: 'currency', currency, minimumFractionDigits: Math.min(digits, 2), maximumFractionDigits: digits }).format(value);
}

/** Time units as the page's language writes them. */
const UNITS = { en: { s: 's', min: 'min', h: 'h', d: 'd' }, zh: { s: '秒', min: '分钟', h: '小时', d: '天' } };
export const unit = (u) => (UNITS[language()] || UNITS.en)[u];

/** Seconds as a short duration: 45 s, 12.5 min, 3.2 h, 4.1 d (秒, 分钟, 小时, 天 in Chinese). */
export function duration(seconds) {
  if (!Number.isFinite(Number(seconds))) return '–';
  if (seconds < 120) return `${rate(seconds)} ${unit('s')}`;
  if (seconds < 7200) return `${num(seconds / 60, 1)} ${unit('min')}`;
  if (seconds < 172800) return `${num(seconds / 3600, 1)} ${unit('h')}`;
  return `${num(seconds / 86400, 1)} ${unit('d')}`;
}
