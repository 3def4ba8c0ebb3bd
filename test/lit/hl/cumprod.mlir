// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s

// hl.cumprod: ATen's cumprod along `dim` (negative counts from the end), the result of
// the input's type; each output is rounded from the product accumulated so far.

// CHECK-LABEL: func.func @running_products(
// CHECK-NEXT:    %p = hl.cumprod %x {dim = 1 : i64} : tensor<2x6xbf16> -> tensor<2x6xbf16>
// CHECK-NEXT:    %q = hl.cumprod %i {dim = -1 : i64} : tensor<6xi64> -> tensor<6xi64>
// CHECK-NEXT:    func.return %p, %q : tensor<2x6xbf16>, tensor<6xi64>
func.func @running_products(%x: tensor<2x6xbf16>, %i: tensor<6xi64>) -> (tensor<2x6xbf16>, tensor<6xi64>) {
  %p = hl.cumprod %x {dim = 1 : i64} : tensor<2x6xbf16> -> tensor<2x6xbf16>
  %q = hl.cumprod %i {dim = -1 : i64} : tensor<6xi64> -> tensor<6xi64>
  func.return %p, %q : tensor<2x6xbf16>, tensor<6xi64>
}
