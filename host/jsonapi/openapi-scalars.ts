/** The JSON Schema and OpenAPI parameter shapes of the documents, and the schema of each attribute type. */
import type { AttributeType } from './resource.ts';

/** A JSON Schema (2020-12) object. */
export type JsonSchema = Record<string, unknown>;

/** An OpenAPI parameter object. */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

/** The schema of a value of one attribute type. */
export function scalarSchema(type: AttributeType): JsonSchema {
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'integer':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date_time':
      return { type: 'string', format: 'date-time' };
    case 'primary_key':
      return { type: 'string', pattern: '^[0-9]+$' };
    case 'array':
      return { type: 'array' };
    case 'object':
      return { type: 'object' };
  }
}
