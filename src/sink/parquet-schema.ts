/**
 * schemas/tables.ts → Parquet schema elements for hyparquet-writer. The mapping is the one
 * documented in schemas/tables.ts, with both the logical type and the legacy converted type so
 * every reader (DuckDB, Spark, pyarrow, hyparquet) sees the same types:
 *   string    → BYTE_ARRAY, STRING (UTF8)
 *   int32     → INT32                       int64  → INT64
 *   bool      → BOOLEAN                     double → DOUBLE
 *   timestamp → INT64, TIMESTAMP(MICROS, isAdjustedToUTC = true)
 *   string[]  → 3-level LIST<STRING> (parquet-format LogicalTypes.md "Lists")
 */
import type { SchemaElement } from 'hyparquet';
import type { Column, TableSchema } from '../../schemas/tables.js';

/** Per-column writer options derived from the schema (sent to the encoder with the elements). */
export interface ColumnPlan {
  name: string;
  type: Column['type'];
  nullable: boolean;
  /** `dict: true` in the schema: force RLE_DICTIONARY (else hyparquet-writer decides by size). */
  dictionary: boolean;
}

export interface TablePlan {
  table: string;
  schema: SchemaElement[];
  columns: ColumnPlan[];
}

export function tablePlan(t: TableSchema): TablePlan {
  const schema: SchemaElement[] = [{ name: 'root', num_children: t.columns.length }];
  for (const col of t.columns) schema.push(...columnElements(col));
  return {
    table: t.name,
    schema,
    columns: t.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable !== false, dictionary: c.dict === true })),
  };
}

function columnElements(col: Column): SchemaElement[] {
  const repetition_type = col.nullable === false ? 'REQUIRED' : 'OPTIONAL';
  const name = col.name;
  switch (col.type) {
    case 'string':
      return [{ name, repetition_type, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } }];
    case 'int32':
      return [{ name, repetition_type, type: 'INT32' }];
    case 'int64':
      return [{ name, repetition_type, type: 'INT64' }];
    case 'bool':
      return [{ name, repetition_type, type: 'BOOLEAN' }];
    case 'double':
      return [{ name, repetition_type, type: 'DOUBLE' }];
    case 'timestamp':
      return [
        {
          name,
          repetition_type,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MICROS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
        },
      ];
    case 'string[]':
      // The list itself may be null (when the column is nullable); its elements are never null.
      return [
        { name, repetition_type, converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
      ];
  }
}
