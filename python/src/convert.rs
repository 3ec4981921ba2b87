//! Values between Python and the library: JSON values (atom records, their
//! ids and results, finding values) and TOML (a config given as a dict).
//! Nesting is bounded, so a list that contains itself is an error, not a
//! stack overflow.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

/// How deep a record or config may nest.
pub const MAX_DEPTH: usize = 64;

/// A JSON value as a Python object (`None`, `bool`, `int`, `float`, `str`,
/// `list`, `dict` in key order).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// A Python object as a JSON value: `None`, `bool`, `int` (64-bit), finite
/// `float`, `str`, `list`/`tuple`, `dict` with `str` keys. The error names
/// where in the value the offending object is (`key `layout``, `[2]`).
pub fn py_to_json(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(format!("integer {} does not fit 64 bits", obj.str().map(|s| s.to_string()).unwrap_or_default()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return serde_json::Number::from_f64(v).map(Value::Number).ok_or_else(|| format!("{v} is not a JSON number"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow().map(|s| Value::String(s.to_string())).map_err(|e| e.to_string());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(format!("dict keys must be str, got {}", type_name(&k)));
            };
            let key = key.to_cow().map_err(|e| e.to_string())?.to_string();
            let value = py_to_json(&v, depth + 1).map_err(|e| format!("key `{key}`: {e}"))?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter().map_err(|e| e.to_string())?.enumerate() {
            let item = item.map_err(|e| e.to_string())?;
            items.push(py_to_json(&item, depth + 1).map_err(|e| format!("[{i}]: {e}"))?);
        }
        return Ok(Value::Array(items));
    }
    Err(format!("{} cannot be written as JSON", type_name(obj)))
}

/// A Python object as a TOML value (a config given as a dict): `bool`,
/// `int`, `float`, `str`, `list`/`tuple`, `dict` with `str` keys.
pub fn py_to_toml(obj: &Bound<'_, PyAny>, depth: usize) -> Result<toml::Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    if obj.is_none() {
        return Err("None has no TOML value".into());
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().map(toml::Value::Integer).map_err(|_| "integer does not fit 64 bits".into());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow().map(|s| toml::Value::String(s.to_string())).map_err(|e| e.to_string());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return py_dict_to_toml(d, depth).map(toml::Value::Table);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter().map_err(|e| e.to_string())?.enumerate() {
            let item = item.map_err(|e| e.to_string())?;
            items.push(py_to_toml(&item, depth + 1).map_err(|e| format!("[{i}]: {e}"))?);
        }
        return Ok(toml::Value::Array(items));
    }
    Err(format!("{} has no TOML value", type_name(obj)))
}

/// A dict as a TOML table; errors name the key path (`rules.x.level`).
pub fn py_dict_to_toml(d: &Bound<'_, PyDict>, depth: usize) -> Result<toml::Table, String> {
    let mut table = toml::Table::new();
    for (k, v) in d.iter() {
        let Ok(key) = k.cast::<PyString>() else {
            return Err(format!("keys must be str, got {}", type_name(&k)));
        };
        let key = key.to_cow().map_err(|e| e.to_string())?.to_string();
        let value = py_to_toml(&v, depth + 1).map_err(|e| {
            // `rules`: `x`: ... reads as a dotted path: `rules.x`.
            match e.strip_prefix('`') {
                Some(rest) => format!("`{key}.{rest}"),
                None => format!("`{key}`: {e}"),
            }
        })?;
        table.insert(key, value);
    }
    Ok(table)
}
