/**
 * The regular expressions and value lists of the format sensors (PostgreSQL ARE syntax), bound as parameters like
 * any other value. They are written for dqctl, composed from named parts below, and accept exactly the texts
 * that DQOps's PostgreSQL sensors accept, so that both tools give the same readout on the same data (issue 12).
 * Where DQOps's acceptance is surprising (a `.` that is any character in `DD.MM.YYYY`, an e-mail top level of 2 to
 * 4 letters, `1,5` as a number in type detection) docs/sensors.md lists it; dqctl keeps DQOps's answer rather than a
 * "better" one, because a readout that differs from DQOps's is a false alarm for a team running both.
 */
import type { DialectName } from '../dialects/dialect.js';

const HEX = '[0-9a-fA-F]';
const HEX4 = `${HEX}{1,4}`;
/** A number 0-255; two-digit forms with a leading zero (`01`) count, as in DQOps. */
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[0-9][0-9]|[0-9])';
const IP4 = `(${OCTET}[.]){3}${OCTET}`;
/** An IPv4 address inside IPv6 forms (octets without leading zeros). */
const EMBEDDED_OCTET = '(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])';
const EMBEDDED_IP4 = `(${EMBEDDED_OCTET}\\.){3,3}${EMBEDDED_OCTET}`;

/** IPv6: full, `::`-compressed, link-local with a zone, IPv4-mapped and IPv4-embedded forms. */
const IP6_FORMS = [
  `(${HEX4}:){7,7}${HEX4}`,
  `(${HEX4}:){1,7}:`,
  `(${HEX4}:){1,6}:${HEX4}`,
  `(${HEX4}:){1,5}(:${HEX4}){1,2}`,
  `(${HEX4}:){1,4}(:${HEX4}){1,3}`,
  `(${HEX4}:){1,3}(:${HEX4}){1,4}`,
  `(${HEX4}:){1,2}(:${HEX4}){1,5}`,
  `${HEX4}:((:${HEX4}){1,6})`,
  `:((:${HEX4}){1,7}|:)`,
  `fe80:(:${HEX}{0,4}){0,4}%[0-9a-zA-Z]{1,}`,
  `::(ffff(:0{1,4}){0,1}:){0,1}${EMBEDDED_IP4}`,
  `(${HEX4}:){1,4}:${EMBEDDED_IP4}`,
];

/** What may stand right before or after a value found inside a longer text: start/end, a space or punctuation. */
const BEFORE = `(^|[ \\t.,:;"'\`|\\n\\r])`;
const AFTER = `([ \\t.,:;"'\`|\\n\\r]|$)`;

/** Characters of an e-mail's local part (the dot only before the last character). */
const EMAIL_LOCAL_CHARS = "a-zA-Z0-9!#$%&'*+/=?^_`{|}~-";
const EMAIL_DOMAIN = '@[-a-zA-Z0-9.]+[.][a-zA-Z]{2,4}';
const EMAIL = `[.${EMAIL_LOCAL_CHARS}]{0,63}[${EMAIL_LOCAL_CHARS}]${EMAIL_DOMAIN}`;
/** The longest local part PATTERNS.email accepts. */
export const EMAIL_LOCAL_MAX = 64;

const US_PHONE_PREFIX = '(\\(\\+1\\)|\\+1|\\(001\\)|001|\\(1\\)|1)';
const USA_PHONE = `(${US_PHONE_PREFIX}[\\s.-]?)?\\(?\\d{3}\\)?[\\s.-]?\\d{3}[\\s.-]?\\d{4}`;
const USA_PHONE_IN_TEXT = '(\\+?1[ .-]?)?(\\([2-9][0-9]{2}\\)|[2-9][0-9]{2})[ .-]?[0-9]{3}[ .-]?[0-9]{4}';

const DD = '(0[1-9]|[12][0-9]|3[01])';
const MM = '(0[1-9]|1[0-2])';
const YYYY = '\\d{4}';
/** Hour of a time in type detection: `0`, `00`-`19`, `20`-`23`. */
const HOUR = '(0|2[0-3]|[01][0-9])';
const MINUTES_SECONDS = ':[0-5][0-9]:[0-5][0-9]';

/** The six numeric date layouts of type detection: day first or year first, separated by `/`, `-` or `.`. */
const DETECTED_DATE_LAYOUTS = ['/', '-', '[.]'].flatMap((sep) => [`${DD}${sep}${MM}${sep}${YYYY}`, `${YYYY}${sep}${MM}${sep}${DD}`]);
const anyOf = (forms: string[], suffix = ''): string => forms.map((form) => `^(${form}${suffix})$`).join('|');

export const PATTERNS = {
  email: `^${EMAIL}$`,
  /**
   * PATTERNS.email without the length of the local part: a text matches PATTERNS.email exactly when it matches
   * this and its `@` (the only one: neither part's characters include it) is at most EMAIL_LOCAL_MAX characters
   * in. PostgreSQL's regex engine pays for the `{0,63}` count on every row (about 7 µs a value, 70% of the
   * benchmark's merged scan); the unbounded pattern and a position check cost a seventh of it.
   */
  emailWithoutLocalLimit: `^[.${EMAIL_LOCAL_CHARS}]*[${EMAIL_LOCAL_CHARS}]${EMAIL_DOMAIN}$`,
  emailInText: `${BEFORE}${EMAIL}${AFTER}`,
  /** 8-4-4-4-12 hex digits; each separator a dash, a whitespace or nothing. */
  uuid: `^${HEX}{8}[\\s-]?${HEX}{4}[\\s-]?${HEX}{4}[\\s-]?${HEX}{4}[\\s-]?${HEX}{12}$`,
  ip4: `^${IP4}$`,
  ip4InText: `${BEFORE}${IP4}${AFTER}`,
  ip6: `^(${IP6_FORMS.join('|')})$`,
  /** Eight groups, or groups around `::`, between separators. */
  ip6InText: [
    `${BEFORE}(${HEX4}:){7}${HEX4}${AFTER}`,
    `${BEFORE}${HEX4}:(${HEX4}:|:${HEX4}):(${HEX4}:){0,5}(${HEX4}){0,1}${AFTER}`,
  ],
  usaPhone: `^${USA_PHONE}$`,
  usaPhoneInText: `(^|[^0-9])${USA_PHONE_IN_TEXT}($|[^0-9])`,
  usaZipcode: '^[0-9]{5}(-[0-9]{4})?$',
  usaZipcodeInText: `${BEFORE}[0-9]{5}(-[0-9]{4})?${AFTER}`,
  /** Letters, spaces, dots, apostrophes and hyphens only (at least one character). */
  name: "^[[:alpha:] .'-]+$",
  /** Text parsing (conversions): digits only; digits with an optional dot, or a dot and digits. */
  integer: '^[0-9]+$',
  float: '^([0-9]+\\.?[0-9]*|\\.[0-9]+)$',
  /** Type detection (string_datatype_detect). */
  detected: {
    integer: '^[-+]?\\d+$',
    /** A number with an optional `.` or `,` fraction (`1,5` counts). */
    float: '^[+-]?[0-9]*[.,]?[0-9]+$',
    /** The "is it some known type" test of the text code uses a stricter decimal: a dot required. */
    decimal: '^[+-]?([0-9]*[.])[0-9]+$',
    date: anyOf(DETECTED_DATE_LAYOUTS),
    datetime: anyOf(DETECTED_DATE_LAYOUTS, `[\\s]${HOUR}${MINUTES_SECONDS}[\\s]?(am|pm|AM|PM)?`),
    timestamp: `^(${YYYY}-${MM}-${DD}[\\s]?[T]?[\\s]?${HOUR}${MINUTES_SECONDS}[\\s]?([.]\\d{0,12})?[\\s]?((GMT)|(UTC))?(([-+]\\d{2}[:]?(\\d{2})?)|[zZ])?)$`,
    boolean: '^(true|false|TRUE|FALSE|yes|no|YES|NO|y|n|Y|N|t|f|T|F)$',
  },
} as const;

/**
 * The layouts of `text_match_date_format_percent` and `text_not_matching_date_pattern_*`. As in DQOps, the dot of
 * `DD.MM.YYYY` is any character. `YYYY/MM/DD` and `Month D, YYYY` are dqctl's own (DQOps's PostgreSQL sensor
 * renders no pattern for them and its query fails).
 */
export const DATE_FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  'YYYY-MM-DD': `^${YYYY}-${MM}-${DD}$`,
  'MM/DD/YYYY': `^${MM}/${DD}/[0-9]{4}$`,
  'DD/MM/YYYY': `^${DD}/${MM}/[0-9]{4}$`,
  'DD-MM-YYYY': `^${DD}-${MM}-${YYYY}$`,
  'DD.MM.YYYY': `^${DD}.${MM}.${YYYY}$`,
  'YYYY/MM/DD': `^${YYYY}/${MM}/${DD}$`,
  'Month D, YYYY': '^(January|February|March|April|May|June|July|August|September|October|November|December) ([1-9]|[12][0-9]|3[01]), [0-9]{4}$',
};

/**
 * Names as DQOps's duckdb, mysql and mariadb templates read them (its PostgreSQL one takes any run of letters,
 * spaces, dots, apostrophes and hyphens): a word of two letters or more and a separator, or an initial and a dot,
 * then a word of two letters or more, then optionally a separator, a word, a separator, a word and a final dot.
 * Letters are ASCII ones and the accented letters of central and western Europe the templates list (not Cyrillic,
 * Greek or other scripts). The separators differ per provider: on DuckDB an apostrophe, whitespace or hyphen after
 * the first word, a dot too later on, and an optional space after an initial; on MySQL whitespace, an apostrophe or
 * a hyphen after the first word and later also `( ) * + , .` (the template's `'-.` is a character range), with no
 * space after an initial.
 */
const NAME_LETTER = '[a-zA-ZżźćńółęąśäöüåáéěíôúůýčďťĺňŕřšžçâêîôûàèìòùëïãõŻŹĆŃÓŁĘĄŚÄÖÜÅÁÉĚÍÔÚŮÝČĎŤĹŇŔŘŠŽÇÂÊÎÔÛÀÈÌÒÙËÏÃÕ]';
function namePattern(separators: { afterWord: string; afterInitial: string; later: string }): string {
  const word = `(${NAME_LETTER}{2,})`;
  const first = `((${NAME_LETTER}{2,})(${separators.afterWord})|(${NAME_LETTER}{1})([.])${separators.afterInitial})`;
  const rest = `(${separators.later}?${word}?(${separators.later}?)(${word}?([.])?))?`;
  return `^${first}${word}${rest}$`;
}
const MYSQL_WHITESPACE = ' \\t\\n\\r\\f\\v';

/**
 * Where DQOps's template for a provider accepts other texts than its PostgreSQL one, dqctl follows that provider's
 * template (a team running both tools sees the same readout on the same source): on DuckDB an empty text is
 * all digits (`^[0-9]*$`); on MySQL and MariaDB the dot of `DD.MM.YYYY` is a dot; names on both (namePattern).
 */
const PATTERNS_BY_DIALECT: Partial<Record<DialectName, { integer?: string; name?: string; dateFormats?: Readonly<Record<string, string>> }>> = {
  duckdb: { integer: '^[0-9]*$', name: namePattern({ afterWord: "['\\s-]", afterInitial: '(\\s?)', later: "['\\s.-]" }) },
  mysql: {
    dateFormats: { 'DD.MM.YYYY': `^${DD}[.]${MM}[.]${YYYY}$` },
    name: namePattern({ afterWord: `[${MYSQL_WHITESPACE}'-]`, afterInitial: '', later: `[${MYSQL_WHITESPACE}'()*+,.-]` }),
  },
};

/** The pattern of `text_not_matching_name_pattern_percent` in a dialect. */
export function namePatternOf(dialect: DialectName): string {
  return PATTERNS_BY_DIALECT[dialect]?.name ?? PATTERNS.name;
}

/** The pattern of conversions' integer texts in a dialect. */
export function integerPattern(dialect: DialectName): string {
  return PATTERNS_BY_DIALECT[dialect]?.integer ?? PATTERNS.integer;
}

/** The pattern of a `date_format` in a dialect, undefined for an unknown format. */
export function dateFormatPattern(dialect: DialectName, format: string): string | undefined {
  return PATTERNS_BY_DIALECT[dialect]?.dateFormats?.[format] ?? DATE_FORMAT_PATTERNS[format];
}

/**
 * Texts meaning "no value", compared lower-cased and untrimmed (the empty text included, `' null '` not). DQOps's
 * list writes `'\''\'''` in standard-conforming SQL, which is the text `\'\'` (backslashes kept), not `''`.
 */
export const NULL_PLACEHOLDERS: readonly string[] = ['', '-', '""', "\\'\\'", '#n/d', 'blank', 'empty', 'missing', 'n/a', 'na', 'nan', 'none', 'null', 'undefined'];

/** Texts parsable as a boolean, compared lower-cased and untrimmed. */
export const BOOLEAN_TEXTS: readonly string[] = ['true', 'false', 't', 'f', 'yes', 'no', 'y', 'n', '1', '0'];

/**
 * The country codes DQOps accepts (compared upper-cased): ISO 3166-1 alpha-2 codes, with Kosovo (XK) and the
 * former Netherlands Antilles (AN), and without some territories (AX BQ BV GF GP GS HM MQ NF TF UM).
 */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BR BS BT BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GG GH GI GL GM GN GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TG TH TJ TK TL TM TN TO TR TT TV TW TZ ' +
  'UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

/**
 * The currency codes DQOps accepts (compared upper-cased): common ISO 4217 codes including some withdrawn ones
 * (HRK, VEF, ZWD), a few unofficial ones (GGP, IMP, JEP, TVD) and local currency signs and abbreviations (`$`, `€`,
 * `zł` upper-cased, …).
 */
export const CURRENCY_CODES: readonly string[] = [
  ...(
    'AED AFN ALL ANG ARS AUD AWG AZN BAM BBD BGN BMD BND BOB BRL BSD BWP BYN BZD CAD CHF CLP CNY COP CRC CUP CZK DKK ' +
    'DOP EGP EUR FJD FKP GBP GGP GHS GIP GTQ GYD HKD HNL HRK HUF IDR ILS IMP INR IRR ISK JEP JMD JPY KGS KHR KPW KRW KYD ' +
    'KZT LAK LBP LKR LRD MKD MNT MUR MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PHP PKR PLN PYG QAR RON RSD RUB SAR ' +
    'SBD SCR SEK SGD SHP SOS SRD SVC SYP THB TRY TTD TVD TWD UAH USD UYU UZS VEF VND XCD YER ZAR ZWD'
  ).split(' '),
  ...'$ $B $U B/. BR BS BZ$ C$ FT GS J$ KM KN KR KČ L LEI LEK MT NT$ P Q R R$ RD$ RM RP S S/. TT$ Z$ ZŁ ¢ £ ¥ Ƒ ДЕН ДИН. ЛВ ؋ د.إ ฿ ៛ ₡ ₦ ₨ ₩ ₪ ₫ € ₭ ₮ ₱ ₴ ₹ ₺ ₼ ﷼'.split(' '),
];

/*
 * Dates parsable from text (text_parsable_to_date_percent): day-month-year, month-day-year or year-month-day with
 * a 2- or 4-digit year (1600-9999), a numeric or three-letter English month, and a separator `/`, `-` or `.` (also
 * a space and an optional comma in month-first dates) used the same way twice; days are checked against the month,
 * 29 February against leap years. The alternation structure (which alternatives share a separator group) decides
 * which odd texts pass, so it follows DQOps's acceptance exactly; the parts are named here.
 */
const YEAR = '(?:(?:1[6-9]|[2-9]\\d)?\\d{2})';
const LEAP_YEAR = '(?:(?:1[6-9]|[2-9]\\d)?(?:0[48]|[2468][048]|[13579][26])|(?:(?:16|[2468][048]|[3579][26])00))';
const SEP = '(\\/|-|\\.)';
const SEP_OR_SPACE = '(\\/|-|\\.|[ ])';
const MONTHS_31 = '0?[13578]|1[02]|(?:Jan|Mar|May|Jul|Aug|Oct|Dec)';
/** Months with a 29th and 30th (every month but February); `[1,3-9]` also lets a comma through, as DQOps does. */
const MONTHS_30 = '0?[1,3-9]|1[0-2]|(?:Jan|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const ANY_MONTH = '(?:(?:0?[1-9]|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep))|(?:1[0-2]|(?:Oct|Nov|Dec)))';
const FEBRUARY = '0?2|(?:Feb)';
const DAY_TO_28 = '(?:0?[1-9]|1\\d|2[0-8])';

export const PARSABLE_DATE_PATTERNS: readonly string[] = [
  // day first: 31st, 29th/30th, 29 February, 1st-28th
  `^(?:(?:31${SEP}(?:${MONTHS_31}))\\1|(?:(?:29|30)${SEP}(?:${MONTHS_30})\\2))${YEAR}$`,
  `^(?:29${SEP}(?:${FEBRUARY})\\1(?:${LEAP_YEAR}))$`,
  `^${DAY_TO_28}${SEP}${ANY_MONTH}\\1${YEAR}$`,
  // month first
  `^(?:(?:(?:${MONTHS_31})${SEP_OR_SPACE}31)(?:[,]?\\1)|(?:(?:${MONTHS_30}${SEP_OR_SPACE}(?:29|30))(?:[,]?\\2)))${YEAR}$`,
  `^(?:(?:${FEBRUARY}${SEP_OR_SPACE}29)(?:[,]?\\1)(?:${LEAP_YEAR}))$`,
  `^(?:${ANY_MONTH}${SEP_OR_SPACE}${DAY_TO_28})(?:[,]?\\1)${YEAR}$`,
  // year first
  `^${YEAR}${SEP}(?:(?:(?:(?:${MONTHS_31})\\1(?:31))|(?:(?:${MONTHS_30}\\1(?:29|30))))|(?:${ANY_MONTH}\\1${DAY_TO_28}))$`,
  `^(?:${LEAP_YEAR})${SEP}(?:(?:${FEBRUARY}\\1(?:29)))$`,
];
