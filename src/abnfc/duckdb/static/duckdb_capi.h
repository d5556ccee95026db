/*
 * The part of DuckDB's C extension API that abnfc's DuckDB extension uses, declared by abnfc.
 *
 * A C extension is handed one struct of function pointers, duckdb_ext_api_v1 (DuckDB's
 * src/include/duckdb_extension.h, with the types of src/include/duckdb.h, MIT licence).  Its
 * members only ever get appended: the first 357 are the v1.2.0 API, in the same order from DuckDB
 * v1.2.0 through v1.5.5 and its main branch of August 2026 (checked member by member; two were
 * renamed, varint to bignum, in their places), and DuckDB v2.0.1 still loads extensions of the
 * "v1.x.y" C API.  So this header declares only the leading 220 members, up to
 * duckdb_register_scalar_function: those abnfc calls with their types, the others as untyped
 * slots that keep the offsets, and an extension states "v1.2.0" as the version it needs.
 */
#ifndef ABNFC_DUCKDB_CAPI_H
#define ABNFC_DUCKDB_CAPI_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t idx_t;
typedef enum duckdb_state { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;
typedef enum duckdb_type { DUCKDB_TYPE_BOOLEAN = 1, DUCKDB_TYPE_VARCHAR = 17 } duckdb_type; /* the two used */

/* Handles: pointers to structs that only DuckDB reads. */
typedef struct _duckdb_database { void *internal_ptr; } *duckdb_database;
typedef struct _duckdb_connection { void *internal_ptr; } *duckdb_connection;
typedef struct _duckdb_logical_type { void *internal_ptr; } *duckdb_logical_type;
typedef struct _duckdb_data_chunk { void *internal_ptr; } *duckdb_data_chunk;
typedef struct _duckdb_vector { void *internal_ptr; } *duckdb_vector;
typedef struct _duckdb_function_info { void *internal_ptr; } *duckdb_function_info;
typedef struct _duckdb_scalar_function { void *internal_ptr; } *duckdb_scalar_function;
typedef struct _duckdb_extension_info { void *internal_ptr; } *duckdb_extension_info;

/* A VARCHAR value (DuckDB's string_t): up to 12 bytes inlined, else a prefix and a pointer. */
typedef struct {
    union {
        struct {
            uint32_t length;
            char prefix[4];
            char *ptr;
        } pointer;
        struct {
            uint32_t length;
            char inlined[12];
        } inlined;
    } value;
} duckdb_string_t;
#define ABNFC_DUCKDB_INLINE 12 /* the longest value held in the string_t itself */

typedef void (*duckdb_scalar_function_t)(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output);

/* What the entry point is given. */
struct duckdb_extension_access {
    void (*set_error)(duckdb_extension_info info, const char *error);
    duckdb_database *(*get_database)(duckdb_extension_info info);
    const void *(*get_api)(duckdb_extension_info info, const char *version);
};

typedef void (*abnfc_unused_fn)(void); /* a member abnfc does not call: it only keeps the offsets */

/* The leading members of duckdb_ext_api_v1, in its order (the numbers are member indices). */
typedef struct {
    abnfc_unused_fn duckdb_open, duckdb_open_ext, duckdb_close;
    /* 3 */
    duckdb_state (*duckdb_connect)(duckdb_database database, duckdb_connection *out_connection);
    abnfc_unused_fn duckdb_interrupt, duckdb_query_progress;
    /* 6 */
    void (*duckdb_disconnect)(duckdb_connection *connection);
    /* 7 */
    const char *(*duckdb_library_version)(void);
    abnfc_unused_fn duckdb_create_config, duckdb_config_count, duckdb_get_config_flag, duckdb_set_config,
        duckdb_destroy_config, duckdb_query, duckdb_destroy_result, duckdb_column_name, duckdb_column_type,
        duckdb_result_statement_type, duckdb_column_logical_type, duckdb_column_count, duckdb_rows_changed,
        duckdb_result_error, duckdb_result_error_type, duckdb_result_return_type, duckdb_malloc, duckdb_free,
        duckdb_vector_size, duckdb_string_is_inlined, duckdb_string_t_length, duckdb_string_t_data,
        duckdb_from_date, duckdb_to_date, duckdb_is_finite_date, duckdb_from_time, duckdb_create_time_tz,
        duckdb_from_time_tz, duckdb_to_time, duckdb_from_timestamp, duckdb_to_timestamp,
        duckdb_is_finite_timestamp, duckdb_hugeint_to_double, duckdb_double_to_hugeint, duckdb_uhugeint_to_double,
        duckdb_double_to_uhugeint, duckdb_double_to_decimal, duckdb_decimal_to_double, duckdb_prepare,
        duckdb_destroy_prepare, duckdb_prepare_error, duckdb_nparams, duckdb_parameter_name, duckdb_param_type,
        duckdb_param_logical_type, duckdb_clear_bindings, duckdb_prepared_statement_type, duckdb_bind_value,
        duckdb_bind_parameter_index, duckdb_bind_boolean, duckdb_bind_int8, duckdb_bind_int16, duckdb_bind_int32,
        duckdb_bind_int64, duckdb_bind_hugeint, duckdb_bind_uhugeint, duckdb_bind_decimal, duckdb_bind_uint8,
        duckdb_bind_uint16, duckdb_bind_uint32, duckdb_bind_uint64, duckdb_bind_float, duckdb_bind_double,
        duckdb_bind_date, duckdb_bind_time, duckdb_bind_timestamp, duckdb_bind_timestamp_tz, duckdb_bind_interval,
        duckdb_bind_varchar, duckdb_bind_varchar_length, duckdb_bind_blob, duckdb_bind_null,
        duckdb_execute_prepared, duckdb_extract_statements, duckdb_prepare_extracted_statement,
        duckdb_extract_statements_error, duckdb_destroy_extracted, duckdb_pending_prepared,
        duckdb_destroy_pending, duckdb_pending_error, duckdb_pending_execute_task,
        duckdb_pending_execute_check_state, duckdb_execute_pending, duckdb_pending_execution_is_finished,
        duckdb_destroy_value, duckdb_create_varchar, duckdb_create_varchar_length, duckdb_create_bool,
        duckdb_create_int8, duckdb_create_uint8, duckdb_create_int16, duckdb_create_uint16, duckdb_create_int32,
        duckdb_create_uint32, duckdb_create_uint64, duckdb_create_int64, duckdb_create_hugeint,
        duckdb_create_uhugeint, duckdb_create_float, duckdb_create_double, duckdb_create_date, duckdb_create_time,
        duckdb_create_time_tz_value, duckdb_create_timestamp, duckdb_create_interval, duckdb_create_blob,
        duckdb_create_bignum, duckdb_create_decimal, duckdb_create_bit, duckdb_create_uuid, duckdb_get_bool,
        duckdb_get_int8, duckdb_get_uint8, duckdb_get_int16, duckdb_get_uint16, duckdb_get_int32,
        duckdb_get_uint32, duckdb_get_int64, duckdb_get_uint64, duckdb_get_hugeint, duckdb_get_uhugeint,
        duckdb_get_float, duckdb_get_double, duckdb_get_date, duckdb_get_time, duckdb_get_time_tz,
        duckdb_get_timestamp, duckdb_get_interval, duckdb_get_value_type, duckdb_get_blob, duckdb_get_bignum,
        duckdb_get_decimal, duckdb_get_bit, duckdb_get_uuid, duckdb_get_varchar, duckdb_create_struct_value,
        duckdb_create_list_value, duckdb_create_array_value, duckdb_get_map_size, duckdb_get_map_key,
        duckdb_get_map_value, duckdb_is_null_value, duckdb_create_null_value, duckdb_get_list_size,
        duckdb_get_list_child, duckdb_create_enum_value, duckdb_get_enum_value, duckdb_get_struct_child;
    /* 156 */
    duckdb_logical_type (*duckdb_create_logical_type)(duckdb_type type);
    abnfc_unused_fn duckdb_logical_type_get_alias, duckdb_logical_type_set_alias, duckdb_create_list_type,
        duckdb_create_array_type, duckdb_create_map_type, duckdb_create_union_type, duckdb_create_struct_type,
        duckdb_create_enum_type, duckdb_create_decimal_type, duckdb_get_type_id, duckdb_decimal_width,
        duckdb_decimal_scale, duckdb_decimal_internal_type, duckdb_enum_internal_type,
        duckdb_enum_dictionary_size, duckdb_enum_dictionary_value, duckdb_list_type_child_type,
        duckdb_array_type_child_type, duckdb_array_type_array_size, duckdb_map_type_key_type,
        duckdb_map_type_value_type, duckdb_struct_type_child_count, duckdb_struct_type_child_name,
        duckdb_struct_type_child_type, duckdb_union_type_member_count, duckdb_union_type_member_name,
        duckdb_union_type_member_type;
    /* 184 */
    void (*duckdb_destroy_logical_type)(duckdb_logical_type *type);
    abnfc_unused_fn duckdb_register_logical_type, duckdb_create_data_chunk, duckdb_destroy_data_chunk,
        duckdb_data_chunk_reset, duckdb_data_chunk_get_column_count;
    /* 190 */
    duckdb_vector (*duckdb_data_chunk_get_vector)(duckdb_data_chunk chunk, idx_t col_idx);
    /* 191 */
    idx_t (*duckdb_data_chunk_get_size)(duckdb_data_chunk chunk);
    abnfc_unused_fn duckdb_data_chunk_set_size, duckdb_vector_get_column_type;
    /* 194 */
    void *(*duckdb_vector_get_data)(duckdb_vector vector);
    /* 195 */
    uint64_t *(*duckdb_vector_get_validity)(duckdb_vector vector);
    /* 196 */
    void (*duckdb_vector_ensure_validity_writable)(duckdb_vector vector);
    /* 197 */
    void (*duckdb_vector_assign_string_element)(duckdb_vector vector, idx_t index, const char *str);
    abnfc_unused_fn duckdb_vector_assign_string_element_len, duckdb_list_vector_get_child, duckdb_list_vector_get_size, duckdb_list_vector_set_size,
        duckdb_list_vector_reserve, duckdb_struct_vector_get_child, duckdb_array_vector_get_child,
        duckdb_validity_row_is_valid, duckdb_validity_set_row_validity, duckdb_validity_set_row_invalid,
        duckdb_validity_set_row_valid;
    /* 209 */
    duckdb_scalar_function (*duckdb_create_scalar_function)(void);
    /* 210 */
    void (*duckdb_destroy_scalar_function)(duckdb_scalar_function *scalar_function);
    /* 211 */
    void (*duckdb_scalar_function_set_name)(duckdb_scalar_function scalar_function, const char *name);
    abnfc_unused_fn duckdb_scalar_function_set_varargs, duckdb_scalar_function_set_special_handling,
        duckdb_scalar_function_set_volatile;
    /* 215 */
    void (*duckdb_scalar_function_add_parameter)(duckdb_scalar_function scalar_function, duckdb_logical_type
            type);
    /* 216 */
    void (*duckdb_scalar_function_set_return_type)(duckdb_scalar_function scalar_function, duckdb_logical_type
            type);
    abnfc_unused_fn duckdb_scalar_function_set_extra_info;
    /* 218 */
    void (*duckdb_scalar_function_set_function)(duckdb_scalar_function scalar_function, duckdb_scalar_function_t
            function);
    /* 219 */
    duckdb_state (*duckdb_register_scalar_function)(duckdb_connection con, duckdb_scalar_function
            scalar_function);
} abnfc_duckdb_api;

#endif
