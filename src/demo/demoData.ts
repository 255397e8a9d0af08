import type { DemoConnection } from './demoConnections.js';
import { POSTGRES_GENERATOR, type GeneratorSql } from './generatorSql.js';

/**
 * The generated shop data, as SQL run on the demo databases (server-side generate_series; nothing is sent
 * row by row). Deterministic: every "random" choice is a fixed hash of the row number and the seed, so one seed
 * and one anchor time give the same rows; dates are relative to the anchor (the time of generation), so the
 * daily and partitioned checks find today's and the recent days' partitions.
 *
 * The data is clean except for a few DELIBERATE problems, sized against the thresholds of examples/shop so that
 * a handful of checks raise a warning or an error and the rest pass (the README of examples/shop lists them):
 *
 *   shop_oltp   customers.email        12 malformed addresses (warning), 6 duplicated addresses (error)
 *               customers.full_name    6 names with a leading space (warning)
 *               orders                 3 delivered orders without paid_at (custom SQL condition: warning)
 *               order_items            6 duplicated (order_id, product_id) pairs (warning)
 *               payments.amount        4 negative amounts (error)
 *               products.product_name  3 placeholder names: N/A, null, - (warning)
 *               shipments              4 deliveries before their shipment (custom SQL condition: warning)
 *   analytics_dwh
 *               fact_orders            ~1% of the orders of public.orders are missing
 *               dim_customer           not loaded for 3 days (data staleness: error)
 *               kundenübersicht        3 last-order dates in the future (error), ~3% empty größe_segment (warning)
 *
 * The example's volume thresholds are sized for production (fact_orders warns below a million rows, web events
 * below 500,000 a day); the demo stays above their error levels, so those checks warn.
 *
 * Statements use named parameters (`:anchor`, `:seed`, …), turned into `$n` bound values by `bindNamed`;
 * every identifier is quoted.
 */
export const GENERATOR_VERSION = 3;

export interface DemoDataSize {
  customers: number;
  products: number;
  orders: number;
  /** Web events per full day (the last two days and today so far). */
  eventsPerDay: number;
}

export const DEFAULT_DEMO_DATA_SIZE: DemoDataSize = { customers: 20_000, products: 500, orders: 105_000, eventsPerDay: 52_000 };

export interface DemoDataParameters extends DemoDataSize {
  /** The time the data is generated for: "now" of every relative date. */
  anchor: Date;
  seed: number;
}

export interface NamedStatement {
  /** What the statement does, for progress and error messages. */
  what: string;
  sql: string;
}

/** Multipliers of the row hashes: each `u(k, …)` is a different low-discrepancy sequence in [0, 1). */
const HASH_MULTIPLIERS = [6180339887, 4142135623, 7320508075, 2360679774, 1415926535, 7182818284, 3166247903, 6457513110, 2915026221, 5826756980];

/** A deterministic number in [0, 1) from a row number (bigint expression) and the seed. */
export function u(k: number, expr: string): string {
  const multiplier = HASH_MULTIPLIERS[k % HASH_MULTIPLIERS.length];
  return `(mod((${expr})::bigint * ${multiplier} + :seed::bigint * ${multiplier + 7}, 10000000000) / 1e10::float8)`;
}

/** An element of a text list chosen by a number in [0, 1). */
function pick(values: readonly string[], unit: string): string {
  return `(array[${values.map((value) => `'${value}'`).join(', ')}])[1 + floor(${unit} * ${values.length})::int]`;
}

/** The currency of an order: exactly 55% EUR, 15% each CHF, GBP and PLN in every run of 20 orders. */
function currencyOf(orderId: string): string {
  return `case when mod(${orderId} * 3, 20) < 11 then 'EUR' when mod(${orderId} * 3, 20) < 14 then 'CHF' when mod(${orderId} * 3, 20) < 17 then 'GBP' else 'PLN' end`;
}

/** Orders missing from mart.fact_orders: about 1% of them. */
function missingFromWarehouse(orderId: string): string {
  return `${u(8, orderId)} < 0.01`;
}

const FIRST_NAMES = ['Anna', 'Jonas', 'Lea', 'Lukas', 'Mia', 'Finn', 'Emma', 'Noah', 'Sofia', 'Elias', 'Marie', 'Paul', 'Clara', 'Jan', 'Eva', 'Tim', 'Lena', 'Max', 'Julia', 'Ben'];
const LAST_NAMES = ['Müller', 'Schmidt', 'de Vries', 'Janssen', 'Dubois', 'Martin', 'Huber', 'Wagner', 'Keller', 'Meier', 'Nowak', 'Rossi', 'García', 'Jensen', 'Peeters', 'Bakker', 'Fischer', 'Weber', 'Lefebvre', "O'Brien"];
// Top-level domain `.test` (reserved, RFC 2606): DQOps's e-mail pattern accepts top-level domains of 2 to 4 letters only.
const DOMAINS = ['mail.test', 'post.test', 'web.test', 'inbox.test', 'shop-mail.test'];

/** Every customer (public.customers; the warehouse derives its dimensions from the same rows). */
const customers = (sql: GeneratorSql): string => `
select g as customer_id,
  case
    when mod(g, 1657) = 0 then 'customer' || g || '(at)mail.test'
    when mod(g, 3001) = 0 then 'customer' || (g - 1) || '@' || (array['${DOMAINS.join("', '")}'])[1 + mod(g - 1, 5)::int]
    else 'customer' || g || '@' || (array['${DOMAINS.join("', '")}'])[1 + mod(g, 5)::int]
  end as email,
  case when mod(g, 2903) = 0 then ' ' else '' end || ${pick(FIRST_NAMES.map(sqlText), u(0, 'g'))} || ' ' || ${pick(LAST_NAMES.map(sqlText), u(1, 'g'))} as full_name,
  case when ${u(2, 'g')} < 0.2 then null else '+49 30 ' || lpad(mod(g * 7919, 10000000)::text, 7, '0') end as phone,
  case
    when c < 35 then 'DE' when c < 47 then 'NL' when c < 58 then 'FR' when c < 68 then 'AT' when c < 78 then 'CH'
    when c < 84 then 'BE' when c < 89 then 'PL' when c < 93 then 'IT' when c < 97 then 'ES' else 'DK'
  end as country_code,
  case when ${u(3, 'g')} < 0.3 then null else ${pick(['bronze', 'silver', 'gold', 'platinum'], u(4, 'g'))} end as loyalty_tier,
  ${u(5, 'g')} < 0.85 as is_active,
  case when ${u(6, 'g')} < 0.1 then null else date '1950-01-01' + floor(${u(7, 'g')} * 20000)::int end as date_of_birth,
  :anchor::timestamptz - ${sql.days(`100 + ((:customers::int - g) * 600 / :customers::int)`)} as created_at,
  :anchor::timestamptz - ${sql.seconds(`60 + ${u(9, 'g')} * 30 * 86400`)} as updated_at
from ${sql.series('1, :customers::int', 'g')}
cross join lateral (select mod(g * 37, 100) as c) as bucket`;

/** Every product. */
const products = (sql: GeneratorSql): string => `
select g as product_id,
  chr(65 + mod(g, 26)::int) || chr(65 + mod(g * 7, 26)::int) || chr(65 + mod(g * 11, 26)::int) || '-' || lpad(g::text, 6, '0') as sku,
  case g when 97 then 'N/A' when 223 then 'null' when 401 then '-'
    else ${pick(['Classic', 'Organic', 'Compact', 'Deluxe', 'Everyday', 'Outdoor', 'Smart', 'Vintage'], u(0, 'g'))} || ' ' ||
         ${pick(['Backpack', 'Teapot', 'Lamp', 'Sneaker', 'Blanket', 'Headphones', 'Notebook', 'Water Bottle', 'Chair', 'Scarf'], u(1, 'g'))} || ' ' || g
  end as product_name,
  ${pick(['bags', 'kitchen', 'lighting', 'shoes', 'home', 'audio', 'office', 'outdoor', 'furniture', 'fashion', 'toys', 'garden'], 'mod(g * 5, 12) / 12.0')} as category,
  round((4.99 + ${u(2, 'g')} * 150)::numeric, 2) as list_price,
  case when ${u(3, 'g')} < 0.05 then null else round((0.05 + ${u(4, 'g')} * 25)::numeric, 3)::float8 end as weight_kg,
  mod(g * 31, 100) < 8 as is_discontinued,
  :anchor::timestamptz - ${sql.days(`400 + g::int`)} as created_at
from ${sql.series('1, :products::int', 'g')}`;

/**
 * Every order, spread evenly over the last 90 days up to a minute before the anchor (about 1,170 a day). Orders
 * of the last day are pending or paid; older ones mostly delivered. Three delivered orders have no paid_at.
 */
const orders = (sql: GeneratorSql): string => `
select order_id, customer_id, order_status, order_total, currency, ordered_at,
  case when order_status in ('pending', 'cancelled') or mod(order_id, 30011) = 0 then null
       else ordered_at + ${sql.seconds(`60 + ${u(2, 'order_id')} * 1800`)} end as paid_at,
  least(:anchor::timestamptz, ordered_at + ${sql.seconds(`7200 + ${u(3, 'order_id')} * 3600`)}) as updated_at
from (
  select g as order_id,
    1 + mod(g * 7919, :customers::int) as customer_id,
    case
      when mod(g, 30011) = 0 then 'delivered'
      when ordered_at > :anchor::timestamptz - interval '1 day' then case when b < 0.4 then 'pending' else 'paid' end
      when b < 0.72 then 'delivered' when b < 0.82 then 'shipped' when b < 0.90 then 'paid' when b < 0.96 then 'cancelled' else 'refunded'
    end as order_status,
    round((5 + power(${u(1, 'g')}, 2) * 400)::numeric, 2) as order_total,
    ${currencyOf('g')} as currency,
    ordered_at
  from ${sql.series('1, :orders::int', 'g')}
  cross join lateral (
    select :anchor::timestamptz - ${sql.seconds(`(:orders::int - g + 1) * 7776000.0 / :orders::int`)} as ordered_at, ${u(0, 'g')} as b
  ) as o
) as orders`;

/** The shop's database: public.customers, products, orders, order_items, payments, shipments. */
function shopStatements(sql: GeneratorSql): NamedStatement[] {
  return [
    { what: 'public.customers', sql: `insert into "public"."customers" select * from (${customers(sql)}) as c` },
    { what: 'public.products', sql: `insert into "public"."products" select * from (${products(sql)}) as p` },
    { what: 'public.orders', sql: `insert into "public"."orders" select * from (${orders(sql)}) as o` },
    {
      what: 'public.order_items',
      sql: `insert into "public"."order_items" ("order_item_id", "order_id", "product_id", "quantity", "unit_price", "discount_amount")
select o."order_id" * 4 + i, o."order_id", p."product_id", 1 + mod(o."order_id" * 7 + i * 3, 4)::int, p."list_price",
  case when ${u(4, 'o."order_id" * 4 + i')} < 0.6 then null else round(p."list_price" * 0.1, 2) end
from "public"."orders" as o
cross join lateral ${sql.series(`1, 1 + mod(o."order_id" * 7, 3)::int`, 'i')}
join "public"."products" as p on p."product_id" = 1 + mod(o."order_id" * 13 + i * 101, :products::int)`,
    },
    {
      what: 'public.order_items: deliberate duplicates of (order_id, product_id)',
      sql: `insert into "public"."order_items" ("order_item_id", "order_id", "product_id", "quantity", "unit_price", "discount_amount")
select 1000000000 + "order_id", "order_id", "product_id", "quantity", "unit_price", "discount_amount"
from "public"."order_items" where "order_item_id" = "order_id" * 4 + 1 and mod("order_id", 17011) = 0`,
    },
    {
      what: 'public.payments',
      sql: `insert into "public"."payments" ("payment_id", "order_id", "payment_method", "amount", "currency", "status", "installments", "paid_at", "recorded_at")
select ${sql.uuid(`md5('payment:' || :seed::bigint || ':' || o."order_id")`)}, o."order_id", o.method, o."order_total", o."currency",
  case when o."order_status" = 'refunded' then 'refunded' when ${u(6, 'o."order_id"')} < 0.02 then 'failed'
       when o."order_status" = 'paid' then 'authorized' else 'captured' end,
  case when o.method = 'klarna' then (array[1, 3, 6, 12])[1 + mod(o."order_id", 4)::int] end,
  o."paid_at", o."paid_at" + ${sql.seconds(`5 + mod(o."order_id" * 7, 120)`)}
from (
  select orders.*, case when b < 0.5 then 'card' when b < 0.75 then 'paypal' when b < 0.85 then 'klarna' when b < 0.95 then 'bank_transfer' else 'gift_card' end as method
  from "public"."orders" as orders cross join lateral (select ${u(5, 'orders."order_id"')} as b) as m
  where orders."paid_at" is not null
) as o`,
    },
    {
      what: 'public.payments: deliberate negative amounts',
      sql: `update "public"."payments" set "amount" = -"amount"
where "payment_id" in (select "payment_id" from "public"."payments" order by "order_id" offset 1000 limit 4)`,
    },
    {
      what: 'public.shipments',
      sql: `insert into "public"."shipments" ("shipment_id", "order_id", "carrier", "tracking_number", "postal_code", "shipped_at", "delivered_at", "updated_at")
select s."order_id", s."order_id",
  case when c < 0.4 then 'DHL' when c < 0.6 then 'DPD' when c < 0.75 then 'UPS' when c < 0.9 then 'GLS' else 'PostNL' end,
  case when mod(s."order_id" * 7, 1000) = 0 then null else upper(substr(md5('tracking:' || s."order_id"), 1, 16)) end,
  lpad(mod(s."order_id" * 7919, 99999)::text, 5, '0'),
  s.shipped_at,
  case when s."order_status" = 'delivered'
       then least(:anchor::timestamptz - interval '1 minute', s.shipped_at + ${sql.seconds(`86400 + ${u(2, 's."order_id"')} * 172800`)}) end,
  least(:anchor::timestamptz, s.shipped_at + ${sql.seconds(`1800 + ${u(3, 's."order_id"')} * 34200`)})
from (
  select o.*, coalesce(o."paid_at", o."ordered_at") + ${sql.seconds(`7200 + ${u(1, 'o."order_id"')} * 72000`)} as shipped_at, ${u(0, 'o."order_id"')} as c
  from "public"."orders" as o where o."order_status" in ('shipped', 'delivered')
) as s`,
    },
    {
      what: 'public.shipments: deliberate deliveries before the shipment',
      sql: `update "public"."shipments" set "delivered_at" = "shipped_at" - interval '6 hours'
where "shipment_id" in (select "shipment_id" from "public"."shipments" where "delivered_at" is not null order by "shipment_id" offset 2000 limit 4)`,
    },
  ];
}

/** The warehouse: mart.fact_orders, dim_customer, dim_product, daily_revenue, "kundenübersicht", staging."web events". */
function warehouseStatements(sql: GeneratorSql): NamedStatement[] {
  return [
    {
      what: 'mart.dim_product',
      sql: `insert into "mart"."dim_product" ("product_key", "product_id", "sku", "product_name", "category", "list_price", "is_discontinued")
select "product_id" + 10000, "product_id", "sku", "product_name", "category", "list_price", "is_discontinued" from (${products(sql)}) as p`,
    },
    {
      what: 'mart.fact_orders (about 1% of the orders missing)',
      sql: `insert into "mart"."fact_orders" ("order_key", "order_id", "customer_key", "order_date", "order_status", "gross_amount", "discount_amount", "net_amount", "item_count", "paid_amount", "loaded_at")
select o."order_id" + 5000000, o."order_id", o."customer_id" + 1000000, o."ordered_at"::date, o."order_status", o."order_total",
  d.discount, o."order_total" - d.discount, 1 + mod(o."order_id" * 7, 3)::int,
  case when o."paid_at" is not null then o."order_total" end,
  least(:anchor::timestamptz, o."ordered_at" + interval '2 hours')
from (${orders(sql)}) as o
cross join lateral (select round(o."order_total" * (${u(7, 'o."order_id"')} * 0.15)::numeric, 2) as discount) as d
where not (${missingFromWarehouse('o."order_id"')})`,
    },
    {
      what: 'mart.daily_revenue',
      sql: `insert into "mart"."daily_revenue" ("revenue_date", "currency", "order_count", "gross_revenue", "net_revenue", "refunded_amount", "loaded_at")
select f."order_date", ${currencyOf('f."order_id"')}, count(*)::int, sum(f."gross_amount"),
  sum(case when f."order_status" = 'refunded' then 0 else f."net_amount" end),
  sum(case when f."order_status" = 'refunded' then f."gross_amount" else 0 end),
  least(:anchor::timestamptz, (f."order_date" + interval '30 hours')::timestamptz)
from "mart"."fact_orders" as f
group by 1, 2`,
    },
    {
      what: 'mart.dim_customer (last loaded 3 days ago)',
      sql: `insert into "mart"."dim_customer" ("customer_key", "customer_id", "email_hash", "country_code", "loyalty_tier", "first_order_date", "lifetime_value", "valid_from", "valid_to", "is_current")
select c."customer_id" + 1000000, c."customer_id", ${sql.sha256Hex('c."email"')}, c."country_code",
  coalesce(c."loyalty_tier", 'none'), f.first_order_date, coalesce(f.lifetime_value, 0),
  :anchor::timestamptz - interval '3 days' - ${sql.seconds(`${u(8, 'c."customer_id"')} * 200 * 86400`)}, null, true
from (${customers(sql)}) as c
left join (
  select "customer_key" - 1000000 as customer_id, min("order_date") as first_order_date, sum("gross_amount") as lifetime_value
  from "mart"."fact_orders" group by 1
) as f using ("customer_id")`,
    },
    {
      what: 'mart."kundenübersicht"',
      sql: `insert into "mart"."kundenübersicht" ("kunden_id", "land", "umsatz_gesamt", "anzahl_bestellungen", "letzte_bestellung_am", "größe_segment")
select c."customer_id", c."country_code", coalesce(f.revenue, 0), coalesce(f.orders, 0)::int, f.last_order_date,
  case when ${u(9, 'c."customer_id"')} < 0.03 then null when coalesce(f.revenue, 0) < 500 then 'klein' when f.revenue < 1500 then 'mittel' else 'groß' end
from (${customers(sql)}) as c
left join (
  select "customer_key" - 1000000 as customer_id, sum("gross_amount") as revenue, count(*) as orders, max("order_date") as last_order_date
  from "mart"."fact_orders" group by 1
) as f using ("customer_id")
where c."country_code" in ('DE', 'AT', 'CH')`,
    },
    {
      what: 'mart."kundenübersicht": deliberate last-order dates in the future',
      sql: `update "mart"."kundenübersicht" set "letzte_bestellung_am" = :anchor::timestamptz::date + 40
where "kunden_id" in (select "kunden_id" from "mart"."kundenübersicht" order by "kunden_id" offset 500 limit 3)`,
    },
    {
      what: 'staging."web events"',
      sql: `insert into "staging"."web events" ("event_id", "session_id", "event type", "page url", "customer_id", "ip_address", "event_ts", "received_at")
select ${sql.uuid(`md5('event:' || :seed::bigint || ':' || e.g)`)}, md5('session:' || :seed::bigint || ':' || (e.g / 12)),
  case when t < 0.70 then 'page_view' when t < 0.82 then 'add_to_cart' when t < 0.86 then 'remove_from_cart' when t < 0.94 then 'checkout_started' else 'purchase' end,
  case when ${u(1, 'e.g')} < 0.5 then 'https://shop.example/' else 'https://www.shop.example/' end || ${pick(['', 'products/', 'cart', 'checkout', 'search?q=lamp', 'category/home'], u(2, 'e.g'))},
  1 + mod(e.g * 7919, :customers::int),
  -- visitors' IPv4 addresses; one event in 5,000 comes from an IPv6 address, which the IPv4 format check reports
  case when mod(e.g, 5000) = 17 then ${sql.inet(`('2001:db8::' || ${sql.hex('mod(e.g, 65536)::int')})`)}
       else ${sql.inet(`('10.' || mod(e.g, 256) || '.' || mod(e.g * 7, 256) || '.' || (1 + mod(e.g * 13, 254)))`)} end,
  e.ts, e.ts + ${sql.seconds(`1 + ${u(3, 'e.g')} * 30`)}
from generate_series(date_trunc('day', :anchor::timestamptz) - interval '2 days', :anchor::timestamptz - interval '1 second', ${sql.seconds(`86400.0 / :events_per_day::int`)})
  with ordinality as e(ts, g)
cross join lateral (select ${u(0, 'e.g')} as t) as kind`,
    },
  ];
}

/** The statements that fill one demo database (its tables exist and are empty). */
export function demoDataStatements(connection: DemoConnection['connection'], sql: GeneratorSql = POSTGRES_GENERATOR): NamedStatement[] {
  return connection === 'shop_oltp' ? shopStatements(sql) : warehouseStatements(sql);
}

/** The values of the named parameters. */
export function demoDataValues(parameters: DemoDataParameters): Record<string, unknown> {
  return {
    anchor: parameters.anchor.toISOString(),
    seed: parameters.seed,
    customers: parameters.customers,
    products: parameters.products,
    orders: parameters.orders,
    events_per_day: parameters.eventsPerDay,
  };
}

/**
 * `:name` placeholders → `$n` and the values in order (a name used twice is bound once). `::type` casts and
 * colons inside string literals (`https://`) are not placeholders: a placeholder is a colon not preceded by a
 * colon and followed by a lower-case name.
 */
export function bindNamed(sql: string, values: Record<string, unknown>): { text: string; params: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/(?<![:\w]):([a-z_]+)\b/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`no value for the parameter :${name}`);
    let index = order.indexOf(name);
    if (index === -1) index = order.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, params: order.map((name) => values[name]) };
}

function sqlText(value: string): string {
  return value.replace(/'/g, "''");
}
