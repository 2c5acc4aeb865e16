// Scoped disposal of the temporaries that operators create.
using System;
using System.Collections.Generic;

namespace Ctorch
{
    /// <summary>
    /// Collects every Tensor that ctorch creates on this thread while the scope is the current
    /// one, and disposes them all when the scope is disposed, except those passed to
    /// <see cref="MoveToOuter"/> (or <see cref="Detach"/>). Scopes nest; they are per thread.
    /// <code>
    /// using (var scope = DisposeScope.Begin())
    /// {
    ///     var y = scope.MoveToOuter((a + b) * c - 1.0);   // (a + b) and (...) * c are disposed
    /// }
    /// </code>
    /// </summary>
    public sealed class DisposeScope : IDisposable
    {
        [ThreadStatic] private static DisposeScope _current;

        private readonly DisposeScope _outer;
        private readonly HashSet<Tensor> _tensors = new HashSet<Tensor>();
        private bool _disposed;

        private DisposeScope(DisposeScope outer) { _outer = outer; }

        /// <summary>Starts a scope on this thread; it is current until disposed.</summary>
        public static DisposeScope Begin()
        {
            var s = new DisposeScope(_current);
            _current = s;
            return s;
        }

        /// <summary>The current scope of this thread, or null.</summary>
        public static DisposeScope Current => _current;

        /// <summary>Number of tensors the scope will dispose.</summary>
        public int Count => _tensors.Count;

        internal static void Register(Tensor t)
        {
            DisposeScope s = _current;
            if (s != null) s._tensors.Add(t);
        }

        /// <summary>Adds a tensor to this scope (it is disposed with the scope).</summary>
        public Tensor Include(Tensor t)
        {
            if (_disposed) throw new ObjectDisposedException(nameof(DisposeScope));
            if ((object)t != null) _tensors.Add(t);
            return t;
        }

        /// <summary>Keeps a tensor alive past this scope: it moves to the enclosing scope, or
        /// to the caller's care when there is none. ObjectDisposedException once this scope is
        /// disposed (its tensors are gone).</summary>
        public Tensor MoveToOuter(Tensor t)
        {
            if (_disposed) throw new ObjectDisposedException(nameof(DisposeScope));
            if ((object)t == null) return null;
            _tensors.Remove(t);
            if (_outer != null && !_outer._disposed) _outer._tensors.Add(t);
            return t;
        }

        /// <summary>Removes a tensor from every scope: the caller disposes it.
        /// ObjectDisposedException once this scope is disposed.</summary>
        public Tensor Detach(Tensor t)
        {
            if (_disposed) throw new ObjectDisposedException(nameof(DisposeScope));
            if ((object)t == null) return null;
            for (DisposeScope s = this; s != null; s = s._outer) s._tensors.Remove(t);
            return t;
        }

        public void Dispose()
        {
            if (_disposed) return;
            _disposed = true;
            foreach (Tensor t in _tensors) t.Dispose();
            _tensors.Clear();
            // Pop this scope (and any inner scope left open) off the thread's stack.
            for (DisposeScope s = _current; s != null; s = s._outer)
            {
                if (s == this)
                {
                    _current = _outer;
                    break;
                }
            }
        }
    }
}
