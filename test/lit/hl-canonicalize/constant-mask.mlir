// RUN: lumir-opt %s --split-input-file -p hl-canonicalize | filecheck %s

// A prefill's attention mask is built from aranges of the fixed length: known at
// compile time. Exactly causal (query i sees keys 0..i; -inf elsewhere), it becomes
// `is_causal`, and the ops that built it die with their last reader.
// CHECK-LABEL: func.func @causal(
// CHECK-NEXT:    %[[A:.*]] = hl.sdpa %q, %k, %v {scale = 1.250000e-01 : f64, is_causal} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>
// CHECK-NEXT:    func.return %[[A]]
func.func @causal(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16> {
  %pos = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
  %rows = hl.reshape %pos : tensor<4xi64> -> tensor<4x1xi64>
  %cols = hl.reshape %pos : tensor<4xi64> -> tensor<1x4xi64>
  %sees = hl.compare %cols, %rows {predicate = "le"} : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %zero = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %ninf = hl.constant {value = dense<0xFF80> : tensor<bf16>} : tensor<bf16>
  %mask = hl.where %sees, %zero, %ninf : (tensor<4x4xi1>, tensor<bf16>, tensor<bf16>) -> tensor<4x4xbf16>
  %a = hl.sdpa %q, %k, %v mask(%mask : tensor<4x4xbf16>) {scale = 1.250000e-01 : f64} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>
  func.return %a : tensor<1x2x4x8xbf16>
}

// -----

// The same with an i1 mask, read by two attentions (evaluated once): both causal.
// CHECK-LABEL: func.func @causal_i1_shared(
// CHECK-NEXT:    hl.sdpa %q, %k, %v {is_causal} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
// CHECK-NEXT:    hl.sdpa %k, %q, %v {is_causal} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
// CHECK-NEXT:    func.return
func.func @causal_i1_shared(%q: tensor<1x3x8xf32>, %k: tensor<1x3x8xf32>, %v: tensor<1x3x8xf32>) -> (tensor<1x3x8xf32>, tensor<1x3x8xf32>) {
  %pos = hl.arange {start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<3xi64>
  %rows = hl.reshape %pos : tensor<3xi64> -> tensor<3x1xi64>
  %sees = hl.compare %pos, %rows {predicate = "le"} : (tensor<3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %a = hl.sdpa %q, %k, %v mask(%sees : tensor<3x3xi1>) : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  %b = hl.sdpa %k, %q, %v mask(%sees : tensor<3x3xi1>) : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  func.return %a, %b : tensor<1x3x8xf32>, tensor<1x3x8xf32>
}

// -----

// One query over one key (a prefill of one token): the causal mask lets everything
// through, so there is no mask at all, and torch's fused kernels take the call.
// CHECK-LABEL: func.func @one_token(
// CHECK-NEXT:    %[[A:.*]] = hl.sdpa %q, %k, %v {enable_gqa} : tensor<1x4x1x8xbf16>, tensor<1x2x1x8xbf16>, tensor<1x2x1x8xbf16> -> tensor<1x4x1x8xbf16>
// CHECK-NEXT:    func.return %[[A]]
func.func @one_token(%q: tensor<1x4x1x8xbf16>, %k: tensor<1x2x1x8xbf16>, %v: tensor<1x2x1x8xbf16>) -> tensor<1x4x1x8xbf16> {
  %pos = hl.arange {start = 0 : i64, end = 1 : i64, step = 1 : i64} : tensor<1xi64>
  %at = hl.reshape %pos : tensor<1xi64> -> tensor<1x1x1x1xi64>
  %sees = hl.compare %at, %at {predicate = "le"} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x1x1x1xi1>
  %zero = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %ninf = hl.constant {value = dense<0xFF80> : tensor<bf16>} : tensor<bf16>
  %mask = hl.where %sees, %zero, %ninf : (tensor<1x1x1x1xi1>, tensor<bf16>, tensor<bf16>) -> tensor<1x1x1x1xbf16>
  %a = hl.sdpa %q, %k, %v mask(%mask : tensor<1x1x1x1xbf16>) {enable_gqa} : tensor<1x4x1x8xbf16>, tensor<1x2x1x8xbf16>, tensor<1x2x1x8xbf16> -> tensor<1x4x1x8xbf16>
  func.return %a : tensor<1x4x1x8xbf16>
}

// -----

// Masks that stay: one read from an argument (a decode step's, from the cache
// position), a constant one that is not causal (each query sees only earlier keys,
// so the first sees none), and one holding a finite bias, which changes the scores.
// CHECK-LABEL: func.func @kept(
// CHECK:         hl.sdpa %q, %k, %v mask(%m : tensor<4x4xi1>)
// CHECK:         hl.sdpa %q, %k, %v mask(%[[EARLIER:.*]] : tensor<4x4xi1>)
// CHECK:         hl.sdpa %q, %k, %v mask(%[[BIAS:.*]] : tensor<4x4xf32>)
func.func @kept(%q: tensor<1x4x8xf32>, %k: tensor<1x4x8xf32>, %v: tensor<1x4x8xf32>, %m: tensor<4x4xi1>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %a = hl.sdpa %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  %pos = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
  %rows = hl.reshape %pos : tensor<4xi64> -> tensor<4x1xi64>
  %earlier = hl.compare %pos, %rows {predicate = "lt"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %b = hl.sdpa %q, %k, %v mask(%earlier : tensor<4x4xi1>) : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  %bias = hl.constant {value = dense<5.000000e-01> : tensor<4x4xf32>} : tensor<4x4xf32>
  %c = hl.sdpa %q, %k, %v mask(%bias : tensor<4x4xf32>) : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  func.return %a, %b, %c : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// HF also fills with the type's lowest finite value instead of -inf: causal too.
// CHECK-LABEL: func.func @causal_lowest(
// CHECK-NEXT:    hl.sdpa %q, %k, %v {is_causal}
func.func @causal_lowest(%q: tensor<1x2x8xbf16>, %k: tensor<1x2x8xbf16>, %v: tensor<1x2x8xbf16>) -> tensor<1x2x8xbf16> {
  %pos = hl.arange {start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<2xi64>
  %rows = hl.reshape %pos : tensor<2xi64> -> tensor<2x1xi64>
  %sees = hl.compare %pos, %rows {predicate = "le"} : (tensor<2xi64>, tensor<2x1xi64>) -> tensor<2x2xi1>
  %zero = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %low = hl.constant {value = dense<-3.389530e+38> : tensor<bf16>} : tensor<bf16>
  %mask = hl.where %sees, %zero, %low : (tensor<2x2xi1>, tensor<bf16>, tensor<bf16>) -> tensor<2x2xbf16>
  %a = hl.sdpa %q, %k, %v mask(%mask : tensor<2x2xbf16>) : tensor<1x2x8xbf16>, tensor<1x2x8xbf16>, tensor<1x2x8xbf16> -> tensor<1x2x8xbf16>
  func.return %a : tensor<1x2x8xbf16>
}

// -----

// On CUDA, torch turns a boolean mask into a float one with -65536 for each false (the
// fill its cuDNN kernel takes), so a CUDA model's aten graph holds that: causal too.
// CHECK-LABEL: func.func @causal_cuda_fill(
// CHECK-NEXT:    hl.sdpa %q, %k, %v {scale = 1.250000e-01 : f64, enable_gqa, is_causal}
// CHECK-NEXT:    func.return
func.func @causal_cuda_fill(%q: tensor<1x4x3x8xbf16>, %k: tensor<1x2x3x8xbf16>, %v: tensor<1x2x3x8xbf16>) -> tensor<1x4x3x8xbf16> {
  %pos = hl.arange {start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<3xi64>
  %rows = hl.reshape %pos : tensor<3xi64> -> tensor<3x1xi64>
  %sees = hl.compare %pos, %rows {predicate = "le"} : (tensor<3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %zero = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %fill = hl.constant {value = dense<-6.553600e+04> : tensor<bf16>} : tensor<bf16>
  %mask = hl.where %sees, %zero, %fill : (tensor<3x3xi1>, tensor<bf16>, tensor<bf16>) -> tensor<3x3xbf16>
  %a = hl.sdpa %q, %k, %v mask(%mask : tensor<3x3xbf16>) {scale = 1.250000e-01 : f64, enable_gqa} : tensor<1x4x3x8xbf16>, tensor<1x2x3x8xbf16>, tensor<1x2x3x8xbf16> -> tensor<1x4x3x8xbf16>
  func.return %a : tensor<1x4x3x8xbf16>
}

// -----

// A causal mask under a scale of 0, below 0 or NaN stays a mask: torch's causal
// kernels scale the -inf of a left-out key, which gives NaN or +inf there, so at scale
// 0 a causal row before the last is NaN where the mask added after scaling averages
// the keys the row sees (mutate fuzzer, mutant 1231 of seed 7). The kernels read the
// scale as f32, so one that is 0 or infinite there stays a mask too: 1e-50, positive
// as a double, is 0 in f32 (mutant 2458 of seed 1000, a 0x7FC00000 read as an f64),
// and 1e39 is inf. A tiny positive scale that f32 holds still becomes `is_causal`.
// CHECK-LABEL: func.func @causal_unscaled(
// CHECK:         hl.sdpa %q, %k, %v mask(%[[M0:.*]] : tensor<4x4xi1>) {scale = 0.000000e+00 : f64}
// CHECK:         hl.sdpa %q, %k, %v mask(%[[M1:.*]] : tensor<4x4xi1>) {scale = -1.000000e+00 : f64}
// CHECK:         hl.sdpa %q, %k, %v mask(%[[M2:.*]] : tensor<4x4xi1>) {scale = 0x7ff8000000000000 : f64}
// CHECK:         hl.sdpa %q, %k, %v {scale = 1.000000e-30 : f64, is_causal}
// CHECK:         hl.sdpa %q, %k, %v mask(%[[M4:.*]] : tensor<4x4xi1>) {scale = 1.000000e-50 : f64}
// CHECK:         hl.sdpa %q, %k, %v mask(%[[M5:.*]] : tensor<4x4xi1>) {scale = 1.000000e+39 : f64}
func.func @causal_unscaled(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %pos = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
  %rows = hl.reshape %pos : tensor<4xi64> -> tensor<4x1xi64>
  %sees = hl.compare %pos, %rows {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %a = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = 0.0 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %b = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = -1.0 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %c = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = 0x7FF8000000000000 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %d = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = 1.0e-30 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %e = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = 1.0e-50 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %f = hl.sdpa %q, %k, %v mask(%sees : tensor<4x4xi1>) {scale = 1.0e+39 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  func.return %a, %b, %c, %d, %e, %f : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}
