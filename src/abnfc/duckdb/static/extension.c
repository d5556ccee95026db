/*
 * abnfc's DuckDB extension: a grammar's validator as the scalar function NAME(VARCHAR) -> BOOLEAN,
 * run by DuckDB itself on each vector, on every thread, with no Python in the loop.
 *
 * Compiled as the batch kernel is (native/static/batch.c, included here with the generated
 * source: ABNFC_PREFIX, ABNFC_SOURCE, ABNFC_NUM_STATES), and with
 *   ABNFC_DUCKDB_ENTRY     the entry point DuckDB looks for: <file name>_init_c_api
 *   ABNFC_DUCKDB_FUNCTION  the function's name, a C string literal
 *   ABNFC_DUCKDB_MARKER    the name of a function of no arguments registered beside it, whose value
 *                          is ABNFC_DUCKDB_STEM (the file's name): which extension registered the
 *                          function last, in that database (DuckDB LOADs a file once a database)
 * DuckDB's C API comes as a struct of function pointers (duckdb_capi.h), handed to the entry point
 * and copied, since DuckDB's own copy lives only as long as the call.
 *
 * DuckDB's values (string_t) are each in their own place, inlined in the vector (12 bytes at
 * most) or behind a pointer: the kernel's abnfc_matches_ takes a pointer and a length a record,
 * so it reads them where they are, ABNFC_CHUNK at a time (copying them into one buffer for the
 * kernel's offsets cost a fifth more time).  A NULL value is never read (its string_t may hold
 * anything): it stays NULL.
 */
#include "batch.c"
#include "duckdb_capi.h"

#define ABNFC_DUCKDB_API_VERSION "v1.2.0" /* the oldest C API with everything used here */

static abnfc_duckdb_api abnfc_api_;

/* Where the values first .. first + n are (a NULL one: empty, not read). */
static void abnfc_values_(const duckdb_string_t *strings, const uint64_t *valid, idx_t first, size_t n,
                          const unsigned char **from, size_t *lengths)
{
    static const unsigned char none[1];
    size_t k;
    for (k = 0; k < n; k++) {
        const duckdb_string_t *value = strings + first + k;
        idx_t row = first + k;
        from[k] = none, lengths[k] = 0;
        if (valid && !((valid[row / 64] >> (row % 64)) & 1u))
            continue;
        lengths[k] = value->value.inlined.length;
        from[k] = (const unsigned char *)(lengths[k] <= ABNFC_DUCKDB_INLINE ? value->value.inlined.inlined
                                                                             : value->value.pointer.ptr);
    }
}

#ifdef ABNFC_PUSHDOWN
/* A refused value that nests past the pushdown validator's depth limit (or whose stack found no
 * memory) has no verdict: the grammar may well match it, so its result is NULL, not false. */
static void abnfc_no_verdict_(duckdb_vector output, idx_t row, const unsigned char *data, size_t len)
{
    size_t at;
    uint64_t *mask;
    if ((int)ABNFC_FN(validate)(data, len, ABNFC_MAX_DEPTH, &at) == ABNFC_STATUS_INVALID)
        return;
    abnfc_api_.duckdb_vector_ensure_validity_writable(output);
    mask = abnfc_api_.duckdb_vector_get_validity(output);
    mask[row / 64] &= ~((uint64_t)1 << (row % 64));
}
#endif

/* The function: out[i] = whether value i matches; a NULL value gives NULL, and so does a value
 * nested past a pushdown validator's depth limit. */
static void abnfc_check_(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output)
{
    idx_t count = abnfc_api_.duckdb_data_chunk_get_size(input), base;
    duckdb_vector values = abnfc_api_.duckdb_data_chunk_get_vector(input, 0);
    const duckdb_string_t *strings = (const duckdb_string_t *)abnfc_api_.duckdb_vector_get_data(values);
    const uint64_t *valid = abnfc_api_.duckdb_vector_get_validity(values); /* NULL: no NULLs */
    bool *out = (bool *)abnfc_api_.duckdb_vector_get_data(output);
    const unsigned char *from[ABNFC_CHUNK];
    size_t lengths[ABNFC_CHUNK], n, k;
    uint8_t ok[ABNFC_CHUNK];
    (void)info;
    if (valid) {
        abnfc_api_.duckdb_vector_ensure_validity_writable(output);
        memcpy(abnfc_api_.duckdb_vector_get_validity(output), valid, (size_t)((count + 63) / 64) * sizeof *valid);
    }
    for (base = 0; base < count; base += n) {
        n = count - base < ABNFC_CHUNK ? (size_t)(count - base) : ABNFC_CHUNK;
        abnfc_values_(strings, valid, base, n, from, lengths);
        abnfc_matches_(from, lengths, n, ok);
        for (k = 0; k < n; k++) {
            out[base + k] = ok[k];
#ifdef ABNFC_PUSHDOWN
            if (!ok[k])
                abnfc_no_verdict_(output, base + k, from[k], lengths[k]);
#endif
        }
    }
}

/* The marker: every row gets the extension's file name. */
static void abnfc_marker_(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output)
{
    idx_t count = abnfc_api_.duckdb_data_chunk_get_size(input), row;
    (void)info;
    for (row = 0; row < count; row++)
        abnfc_api_.duckdb_vector_assign_string_element(output, row, ABNFC_DUCKDB_STEM);
}

/* Registers the marker (see ABNFC_DUCKDB_MARKER); false if DuckDB refuses it. */
static bool abnfc_register_marker_(duckdb_connection connection)
{
    duckdb_scalar_function function = abnfc_api_.duckdb_create_scalar_function();
    duckdb_logical_type varchar = abnfc_api_.duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
    duckdb_state state;
    abnfc_api_.duckdb_scalar_function_set_name(function, ABNFC_DUCKDB_MARKER);
    abnfc_api_.duckdb_scalar_function_set_return_type(function, varchar);
    abnfc_api_.duckdb_scalar_function_set_function(function, abnfc_marker_);
    state = abnfc_api_.duckdb_register_scalar_function(connection, function);
    abnfc_api_.duckdb_destroy_logical_type(&varchar);
    abnfc_api_.duckdb_destroy_scalar_function(&function);
    return state == DuckDBSuccess;
}

/* Registers the function on a connection (replacing one of the same name and argument), and its
 * marker; false if DuckDB refuses them. */
static bool abnfc_register_(duckdb_connection connection)
{
    duckdb_scalar_function function = abnfc_api_.duckdb_create_scalar_function();
    duckdb_logical_type varchar = abnfc_api_.duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
    duckdb_logical_type boolean = abnfc_api_.duckdb_create_logical_type(DUCKDB_TYPE_BOOLEAN);
    duckdb_state state;
    abnfc_api_.duckdb_scalar_function_set_name(function, ABNFC_DUCKDB_FUNCTION);
    abnfc_api_.duckdb_scalar_function_add_parameter(function, varchar);
    abnfc_api_.duckdb_scalar_function_set_return_type(function, boolean);
    abnfc_api_.duckdb_scalar_function_set_function(function, abnfc_check_);
    state = abnfc_api_.duckdb_register_scalar_function(connection, function);
    abnfc_api_.duckdb_destroy_logical_type(&varchar);
    abnfc_api_.duckdb_destroy_logical_type(&boolean);
    abnfc_api_.duckdb_destroy_scalar_function(&function);
    return state == DuckDBSuccess && abnfc_register_marker_(connection);
}

/* The entry point of LOAD: the API, the kernel's table (built before any thread reads it), then
 * the function, registered through a connection of its own. */
__attribute__((visibility("default"))) bool ABNFC_DUCKDB_ENTRY(duckdb_extension_info info,
                                                                struct duckdb_extension_access *access);
__attribute__((visibility("default"))) bool ABNFC_DUCKDB_ENTRY(duckdb_extension_info info,
                                                                struct duckdb_extension_access *access)
{
    const abnfc_duckdb_api *api = (const abnfc_duckdb_api *)access->get_api(info, ABNFC_DUCKDB_API_VERSION);
    duckdb_database *database;
    duckdb_connection connection;
    bool registered;
    if (!api)
        return false; /* DuckDB has set the error */
    abnfc_api_ = *api;
    ABNFC_FN(batch_init)();
    database = access->get_database(info);
    if (!database)
        return false;
    if (abnfc_api_.duckdb_connect(*database, &connection) != DuckDBSuccess) {
        access->set_error(info, "abnfc: could not open a connection to register " ABNFC_DUCKDB_FUNCTION);
        return false;
    }
    registered = abnfc_register_(connection);
    abnfc_api_.duckdb_disconnect(&connection);
    if (!registered)
        access->set_error(info, "abnfc: DuckDB refused to register the function " ABNFC_DUCKDB_FUNCTION);
    return registered;
}
