import { quoteIdent, quoteQualified } from '../datasource/index.js';
import type { DemoConnection } from './demoConnections.js';

/**
 * The tables of the demo databases: exactly the schemas, tables and columns the 12 table files of
 * examples/shop name, with the types and nullability of their `type_snapshot`s, so the example's checks (and
 * its schema checks: column counts, column lists) find what they expect. Names are used as they are, umlauts
 * and spaces included (`mart."kundenübersicht"`, `staging."web events"."event type"`), always quoted.
 */
export interface DemoColumn {
  name: string;
  /** PostgreSQL type as written in DDL. */
  type: string;
  notNull: boolean;
}

export interface DemoTable {
  connection: DemoConnection['connection'];
  schema: string;
  table: string;
  columns: DemoColumn[];
  primaryKey: string[];
}

const col = (name: string, type: string, notNull = true): DemoColumn => ({ name, type, notNull });

export const DEMO_TABLES: readonly DemoTable[] = [
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'customers',
    columns: [
      col('customer_id', 'bigint'),
      col('email', 'varchar(320)'),
      col('full_name', 'varchar(200)', false),
      col('phone', 'varchar(32)', false),
      col('country_code', 'char(2)'),
      col('loyalty_tier', 'varchar(16)', false),
      col('is_active', 'boolean'),
      col('date_of_birth', 'date', false),
      col('created_at', 'timestamptz'),
      col('updated_at', 'timestamptz'),
    ],
    primaryKey: ['customer_id'],
  },
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'products',
    columns: [
      col('product_id', 'bigint'),
      col('sku', 'varchar(16)'),
      col('product_name', 'text'),
      col('category', 'varchar(64)'),
      col('list_price', 'numeric(10,2)'),
      col('weight_kg', 'float8', false),
      col('is_discontinued', 'boolean'),
      col('created_at', 'timestamptz'),
    ],
    primaryKey: ['product_id'],
  },
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'orders',
    columns: [
      col('order_id', 'bigint'),
      col('customer_id', 'bigint'),
      col('order_status', 'varchar(20)'),
      col('order_total', 'numeric(12,2)'),
      col('currency', 'char(3)'),
      col('ordered_at', 'timestamptz'),
      col('paid_at', 'timestamptz', false),
      col('updated_at', 'timestamptz'),
    ],
    primaryKey: ['order_id'],
  },
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'order_items',
    columns: [
      col('order_item_id', 'bigint'),
      col('order_id', 'bigint'),
      col('product_id', 'bigint'),
      col('quantity', 'integer'),
      col('unit_price', 'numeric(10,2)'),
      col('discount_amount', 'numeric(10,2)', false),
    ],
    primaryKey: ['order_item_id'],
  },
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'payments',
    columns: [
      col('payment_id', 'uuid'),
      col('order_id', 'bigint'),
      col('payment_method', 'varchar(24)'),
      col('amount', 'numeric(12,2)'),
      col('currency', 'char(3)'),
      col('status', 'varchar(16)'),
      col('installments', 'smallint', false),
      col('paid_at', 'timestamptz'),
      col('recorded_at', 'timestamptz'),
    ],
    primaryKey: ['payment_id'],
  },
  {
    connection: 'shop_oltp',
    schema: 'public',
    table: 'shipments',
    columns: [
      col('shipment_id', 'bigint'),
      col('order_id', 'bigint'),
      col('carrier', 'varchar(32)'),
      col('tracking_number', 'varchar(40)', false),
      col('postal_code', 'varchar(12)'),
      col('shipped_at', 'timestamptz'),
      col('delivered_at', 'timestamptz', false),
      col('updated_at', 'timestamptz'),
    ],
    primaryKey: ['shipment_id'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'mart',
    table: 'dim_customer',
    columns: [
      col('customer_key', 'bigint'),
      col('customer_id', 'bigint'),
      col('email_hash', 'char(64)'),
      col('country_code', 'char(2)'),
      col('loyalty_tier', 'varchar(16)'),
      col('first_order_date', 'date', false),
      col('lifetime_value', 'numeric(14,2)'),
      col('valid_from', 'timestamptz'),
      col('valid_to', 'timestamptz', false),
      col('is_current', 'boolean'),
    ],
    primaryKey: ['customer_key'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'mart',
    table: 'dim_product',
    columns: [
      col('product_key', 'bigint'),
      col('product_id', 'bigint'),
      col('sku', 'varchar(16)'),
      col('product_name', 'text'),
      col('category', 'varchar(64)'),
      col('list_price', 'numeric(10,2)'),
      col('is_discontinued', 'boolean'),
    ],
    primaryKey: ['product_key'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'mart',
    table: 'fact_orders',
    columns: [
      col('order_key', 'bigint'),
      col('order_id', 'bigint'),
      col('customer_key', 'bigint'),
      col('order_date', 'date'),
      col('order_status', 'varchar(20)'),
      col('gross_amount', 'numeric(14,2)'),
      col('discount_amount', 'numeric(14,2)'),
      col('net_amount', 'numeric(14,2)'),
      col('item_count', 'integer'),
      col('paid_amount', 'numeric(14,2)', false),
      col('loaded_at', 'timestamptz'),
    ],
    primaryKey: ['order_key'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'mart',
    table: 'daily_revenue',
    columns: [
      col('revenue_date', 'date'),
      col('currency', 'char(3)'),
      col('order_count', 'integer'),
      col('gross_revenue', 'numeric(16,2)'),
      col('net_revenue', 'numeric(16,2)'),
      col('refunded_amount', 'numeric(16,2)'),
      col('loaded_at', 'timestamptz'),
    ],
    primaryKey: ['revenue_date', 'currency'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'mart',
    table: 'kundenübersicht',
    columns: [
      col('kunden_id', 'bigint'),
      col('land', 'char(2)'),
      col('umsatz_gesamt', 'numeric(14,2)'),
      col('anzahl_bestellungen', 'integer'),
      col('letzte_bestellung_am', 'date', false),
      col('größe_segment', 'varchar(12)', false),
    ],
    primaryKey: ['kunden_id'],
  },
  {
    connection: 'analytics_dwh',
    schema: 'staging',
    table: 'web events',
    columns: [
      col('event_id', 'uuid'),
      col('session_id', 'varchar(64)'),
      col('event type', 'varchar(32)'),
      col('page url', 'text'),
      col('customer_id', 'bigint', false),
      col('ip_address', 'inet', false),
      col('event_ts', 'timestamptz'),
      col('received_at', 'timestamptz'),
    ],
    primaryKey: ['event_id'],
  },
];

/** The tables of one connection. */
export function demoTablesOf(connection: DemoConnection['connection']): DemoTable[] {
  return DEMO_TABLES.filter((table) => table.connection === connection);
}

/**
 * `create table "schema"."table" ("col" type [not null], …)`, every identifier quoted; `typeOf` maps a
 * PostgreSQL type to another engine's (DuckDB has no inet).
 */
export function createTableSql(table: DemoTable, typeOf: (type: string) => string = (type) => type): string {
  const columns = table.columns.map((column) => `${quoteIdent(column.name)} ${typeOf(column.type)}${column.notNull ? ' not null' : ''}`);
  return `create table ${quoteQualified(table.schema, table.table)} (${columns.join(', ')})`;
}

/** The primary key, added after the rows are in (faster than maintaining it during the load). */
export function addPrimaryKeySql(table: DemoTable): string {
  return `alter table ${quoteQualified(table.schema, table.table)} add primary key (${table.primaryKey.map(quoteIdent).join(', ')})`;
}
