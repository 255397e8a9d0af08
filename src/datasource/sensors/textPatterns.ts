/**
 * The regular expressions and value lists of the format sensors, written for dqctl (PostgreSQL ARE syntax).
 * They are bound as parameters like any other value. Each is deliberately simple and documented in the README:
 * a format check flags values that do not look like the format, it does not validate them against the world
 * (an e-mail address is not checked for a deliverable domain, a date pattern not against the calendar).
 */

const HEX4 = '[0-9A-Fa-f]{1,4}';
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';

/** IPv6 in its full and `::`-compressed forms (without embedded IPv4). */
const IP6_FORMS = [
  `(${HEX4}:){7}${HEX4}`,
  `(${HEX4}:){1,7}:`,
  `(${HEX4}:){1,6}:${HEX4}`,
  `(${HEX4}:){1,5}(:${HEX4}){1,2}`,
  `(${HEX4}:){1,4}(:${HEX4}){1,3}`,
  `(${HEX4}:){1,3}(:${HEX4}){1,4}`,
  `(${HEX4}:){1,2}(:${HEX4}){1,5}`,
  `${HEX4}:(:${HEX4}){1,6}`,
  `:(:${HEX4}){1,7}`,
];

const IP4 = `${OCTET}(\\.${OCTET}){3}`;
const IP6 = `(${[...IP6_FORMS, '::'].join('|')})`;
/** In free text only all eight groups, or groups on both sides of `::` (so `std::vector` is no address). */
const IP6_IN_TEXT = `((${HEX4}:){7}${HEX4}|(${HEX4}:){1,6}(:${HEX4}){1,6})`;
const USA_PHONE = '(\\+?1[ .-]?)?(\\([2-9][0-9]{2}\\)|[2-9][0-9]{2})[ .-]?[0-9]{3}[ .-]?[0-9]{4}';
const USA_ZIPCODE = '[0-9]{5}(-[0-9]{4})?';
const EMAIL_LOCAL = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*";
// No bounded repetition ({0,61}): PostgreSQL's regex engine expands it into a large automaton, 10x slower.
const DOMAIN_LABEL = '[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?';
const EMAIL = `${EMAIL_LOCAL}@${DOMAIN_LABEL}(\\.${DOMAIN_LABEL})*\\.[A-Za-z][A-Za-z]+`;

const DD = '(0[1-9]|[12][0-9]|3[01])';
const MM = '(0[1-9]|1[0-2])';
const YYYY = '[0-9]{4}';
const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';

export const PATTERNS = {
  email: `^${EMAIL}$`,
  emailInText: `(^|[^A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@${DOMAIN_LABEL}(\\.${DOMAIN_LABEL})*\\.[A-Za-z][A-Za-z]+($|[^A-Za-z0-9])`,
  uuid: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  ip4: `^${IP4}$`,
  ip4InText: `(^|[^0-9.])${IP4}($|[^0-9.])`,
  ip6: `^${IP6}$`,
  ip6InText: `(^|[^0-9A-Fa-f:])${IP6_IN_TEXT}($|[^0-9A-Fa-f:])`,
  usaPhone: `^${USA_PHONE}$`,
  usaPhoneInText: `(^|[^0-9])${USA_PHONE}($|[^0-9])`,
  usaZipcode: `^${USA_ZIPCODE}$`,
  usaZipcodeInText: `(^|[^0-9-])${USA_ZIPCODE}($|[^0-9-])`,
  /** One or more words of letters, joined by single spaces, hyphens or apostrophes; an optional final dot. */
  name: "^[[:alpha:]]+([ '-][[:alpha:]]+)*\\.?$",
  /** Empty or only whitespace. */
  blank: '^[[:space:]]*$',
  /** Starts or ends with whitespace. */
  surroundedByWhitespace: '^[[:space:]]|[[:space:]]$',
  whitespaceRun: '[[:space:]]+',
  integer: '^[+-]?[0-9]+$',
  float: '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$',
  /** Dates of the common numeric layouts: year first (- / .), day first (- / .), month first (/). */
  date: `^(${YYYY}[-/.]${MM}[-/.]${DD}|${DD}[-/.]${MM}[-/.]${YYYY}|${MM}/${DD}/${YYYY})$`,
  /** An ISO date and a time of day, without a time zone. */
  datetime: `^${YYYY}-${MM}-${DD}[ T]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?$`,
  /** An ISO date and a time of day with `Z` or an offset. */
  timestamp: `^${YYYY}-${MM}-${DD}[ T]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)? ?(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)$`,
} as const;

/** The date layouts of `text_match_date_format_percent` and `text_not_matching_date_pattern_*`. */
export const DATE_FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  'YYYY-MM-DD': `^${YYYY}-${MM}-${DD}$`,
  'MM/DD/YYYY': `^${MM}/${DD}/${YYYY}$`,
  'DD/MM/YYYY': `^${DD}/${MM}/${YYYY}$`,
  'DD-MM-YYYY': `^${DD}-${MM}-${YYYY}$`,
  'DD.MM.YYYY': `^${DD}\\.${MM}\\.${YYYY}$`,
  'YYYY/MM/DD': `^${YYYY}/${MM}/${DD}$`,
  'Month D, YYYY': `^(${MONTHS}) ([1-9]|[12][0-9]|3[01]), ${YYYY}$`,
};

/** Texts meaning "no value" (compared lower-cased and trimmed). */
export const NULL_PLACEHOLDERS: readonly string[] = ['null', 'none', 'nil', 'n/a', 'na', 'nan', 'undefined', 'missing', '-', '--'];

/** Texts parsable as a boolean (compared lower-cased and trimmed). */
export const BOOLEAN_TEXTS: readonly string[] = ['true', 'false', 't', 'f', 'yes', 'no', 'y', 'n', '1', '0'];
/** Boolean texts that are not numbers (string_datatype_detect counts `1`/`0` as integers). */
export const BOOLEAN_WORDS: readonly string[] = ['true', 'false', 't', 'f', 'yes', 'no', 'y', 'n'];

/** ISO 3166-1 alpha-2 country codes. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ ' +
  'UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/** ISO 4217 currency codes in use (including fund and precious-metal codes; not XTS and XXX). */
export const CURRENCY_CODES: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF ' +
  'GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL ' +
  'LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN ' +
  'PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD ' +
  'TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT ' +
  'XSU XUA YER ZAR ZMW ZWG ZWL'
).split(' ');
